#!/usr/bin/env bash
# Leak and memory-error check of the host runtime (shell-native/host/*.cpp), without koffi or
# node in the picture: a standalone C++ driver (scripts/host-driver.cpp) runs an
# open/compile/pipeline/buffer/dispatch/read/free loop plus the error paths.
#   1. built with -fsanitize=address,undefined (LeakSanitizer on) and run;
#   2. built plainly (-O1 -g) and run under valgrind --leak-check=full (when valgrind exists).
# Usage: scripts/valgrind-host.sh [rounds]   (default 20). Exit status 0 when both are clean.
set -u
cd "$(dirname "$0")/.."
ROUNDS="${1:-20}"
OUT="$(mktemp -d "${TMPDIR:-/tmp}/tile-leaks-XXXXXX")"
export TILE_CACHE_DIR="$OUT/cache"
CXX="${CXX:-g++}"
[ -f build/native/gen/shim_text.inc ] || node shell-native/build.mjs >/dev/null || exit 1   # the embedded shim text
SRC=(shell-native/common/*.cpp shell-native/host/*.cpp scripts/host-driver.cpp)
status=0

echo "== AddressSanitizer + LeakSanitizer + UBSan ($ROUNDS rounds)"
"$CXX" -std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -I build/native/gen \
  -o "$OUT/driver-asan" "${SRC[@]}" -ldl -lpthread || exit 1
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  "$OUT/driver-asan" "$ROUNDS" >"$OUT/asan.log" 2>&1
rc=$?
tail -n 3 "$OUT/asan.log"
if [ $rc -ne 0 ] || grep -qE "ERROR: (Address|Leak)Sanitizer|runtime error:" "$OUT/asan.log"; then
  echo "ASan: FINDINGS (exit $rc), see $OUT/asan.log"; grep -E "SUMMARY|ERROR|runtime error" "$OUT/asan.log" | head -20; status=1
else
  echo "ASan: clean (no leaks, no memory errors, no undefined behaviour)"
fi

if command -v valgrind >/dev/null; then
  N=$(( ROUNDS < 5 ? ROUNDS : 5 ))
  echo "== valgrind memcheck ($N rounds)"
  "$CXX" -std=c++17 -O1 -g -I build/native/gen -o "$OUT/driver" "${SRC[@]}" -ldl -lpthread || exit 1
  valgrind --leak-check=full --show-leak-kinds=definite,indirect,possible --errors-for-leak-kinds=definite,indirect,possible \
    --error-exitcode=9 --child-silent-after-fork=yes --trace-children=no \
    "$OUT/driver" "$N" >"$OUT/valgrind.log" 2>&1
  rc=$?
  grep -E "driver:|ERROR SUMMARY|definitely lost|indirectly lost|possibly lost|still reachable|All heap blocks" "$OUT/valgrind.log"
  if [ $rc -ne 0 ]; then echo "valgrind: FINDINGS (exit $rc), see $OUT/valgrind.log"; status=1; else echo "valgrind: clean"; fi
else
  echo "valgrind: not installed, skipped"
fi
echo "logs: $OUT"
exit $status
