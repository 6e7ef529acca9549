cd .gpu/exp25 && python3 regs25.py 2>&1 | tee $OUT/regs25.txt
