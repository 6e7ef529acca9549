#!/bin/sh
# The host runtime's compiler during `npm test` (vitest.config.mjs sets TILE_CXX to this file):
# the compiler the runtime would use ($TILE_TEST_CXX), with the runtime's own flags and -O0 added
# last, which overrides its -O1. Test kernels compile about three times faster and run as fast
# (the detector's calls dominate their time). The results do not depend on the level: x86-64
# scalar SSE arithmetic, no contraction in ISO C++ mode, no -ffast-math. TILE_TEST_O1=1 (or a
# TILE_CXX of your own) runs the suite with the product's flags.
exec "${TILE_TEST_CXX:-g++}" "$@" -O0
