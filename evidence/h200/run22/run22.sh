set -u
cd .gpu/exp22
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
timeout 500 python3 time22.py 15 2>&1 | tee $OUT/time22.txt
