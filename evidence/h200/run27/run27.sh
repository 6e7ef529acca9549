cd .gpu/exp27 && timeout 500 python3 time27.py 15 2>&1 | tee $OUT/time27.txt
