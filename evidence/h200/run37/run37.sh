set -u
# run 37 (session 9): softmax as emitted (min/max order -0 below +0: a sign word per max stripe,
# a zero test in tile_simd_max) against the same units without it, interleaved, CUDA events
cd .gpu/exp37
timeout 400 python3 time37.py 21 2>&1 | tee $OUT/time37.txt
