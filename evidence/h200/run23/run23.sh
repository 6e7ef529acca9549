set -u
cd .gpu/exp23
timeout 500 python3 time23.py 15 2>&1 | tee $OUT/time23.txt
