cd .gpu/exp15 && python3 dbg15.py 2>&1
