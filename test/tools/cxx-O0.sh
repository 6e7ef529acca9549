#!/bin/sh
# The host runtime's compiler during `npm test` (vitest.config.mjs sets TILE_CXX to this file):
# the compiler the runtime would use ($TILE_TEST_CXX), with the runtime's own flags and -O0 added
# last, which overrides its -O1. Test kernels compile about three times faster and run as fast
# (the detector's calls dominate their time). The results do not depend on the level: x86-64
# scalar SSE arithmetic, no contraction in ISO C++ mode, no -ffast-math. TILE_TEST_O1=1 (or a
# TILE_CXX of your own) runs the suite with the product's flags.
# On Linux the link is cheaper too: a kernel unit needs nothing but libm (the runtime hands it
# everything else through a table), so it is linked against libm alone (-nodefaultlibs -lm), with
# --no-undefined so that a unit needing anything more fails that link; it is then compiled again
# exactly as the runtime would (its default libraries). Either way the .so needs the libraries and
# versioned symbols the runtime's own link gives it (test/test-settings.test.ts checks).
# vitest.config.mjs passes the system's name as TILE_TEST_UNAME (os.type(), what `uname -s` prints),
# which saves a uname process per unit; run alone, the script asks uname.
cxx="${TILE_TEST_CXX:-g++}"
if [ "${TILE_TEST_UNAME:-$(uname -s)}" = Linux ] && "$cxx" "$@" -O0 -nodefaultlibs -lm -Wl,--no-undefined 2>/dev/null; then
  exit 0
fi
exec "$cxx" "$@" -O0
