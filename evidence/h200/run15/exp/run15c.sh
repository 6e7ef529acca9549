cd .gpu/exp15 && python3 dbg15b.py 2>&1 | tail -40; echo ---; timeout 200 compute-sanitizer --tool memcheck python3 dbg15b.py 2>&1 | grep -v "^after\|^ln\|^rms\|^sm\|^gelu\|^pair\|^copy" | head -40
