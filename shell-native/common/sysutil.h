// sysutil.h: the file and process helpers both native runtimes that compile at run time need (the
// host runtime's g++ cache and the CUDA runtime's NVRTC/nvcc cache).
#ifndef TILE_SYSUTIL_H
#define TILE_SYSUTIL_H

#include <string>
#include <vector>

namespace tile_sys {

bool file_exists(const std::string &path);
// Creates every missing folder of `path`; true when it is a folder afterwards.
bool mkdirs(const std::string &path);
// Writes atomically (temp file + rename), so parallel processes never see a partial file.
bool write_file(const std::string &path, const std::string &text);
// The whole file, or false when it cannot be opened.
bool read_file(const std::string &path, std::string *out);
std::string dirname_of(const std::string &path);
// Runs argv (argv[0] looked up on PATH when `search_path`), stdin from /dev/null, stdout and
// stderr to log_path. Returns the exit status, or -1 when it could not run or did not exit.
int run_logged(const std::vector<std::string> &argv, const std::string &log_path, bool search_path);

} // namespace tile_sys

#endif
