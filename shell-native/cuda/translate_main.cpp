// translate_main.cpp: `tile_cuda_translate PRELUDE < kernel.metal > unit.cu` prints the CUDA unit
// the runtime compiles for an MSL source (tests build it with g++; no CUDA needed). With
// --entries it prints only the generated entry points. Exit 1 (log on stderr) on errors.
#include <fstream>
#include <iostream>
#include <sstream>

#include "translate.h"

int main(int argc, char **argv) {
  if (argc < 2) {
    std::cerr << "usage: tile_cuda_translate PRELUDE.cuh [--entries|--rewrite] < kernel.metal\n";
    return 2;
  }
  std::ifstream pf(argv[1]);
  std::stringstream prelude, src;
  prelude << pf.rdbuf();
  src << std::cin.rdbuf();
  std::string mode = argc > 2 ? argv[2] : "";
  if (mode == "--rewrite") {
    std::cout << tile_cuda::rewrite_source(src.str());
    return 0;
  }
  tile_cuda::Unit u = tile_cuda::translate(src.str(), prelude.str(), "kernel.metal");
  if (!u.log.empty()) {
    std::cerr << u.log;
    return 1;
  }
  if (mode == "--entries") {
    for (const auto &k : u.kernels) std::cout << tile_cuda::entry_point(k);
  } else {
    std::cout << u.text;
  }
  return 0;
}
