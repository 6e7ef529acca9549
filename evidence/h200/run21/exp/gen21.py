# run 21: writes NAME.cu (the CUDA unit the runtime compiles for NAME.metal) and NAME_R.cu (the same
# with __restrict__ on every buffer parameter of the kernel function) and meta.json, for time21.py.
# usage: python3 gen21.py TRANSLATE PRELUDE   (TRANSLATE: g++ -O1 -std=c++17 -o translate
#   shell-native/cuda/translate.cpp shell-native/cuda/translate_main.cpp shell-native/common/msl_signature.cpp
#   -Ishell-native; PRELUDE: shell-native/cuda/msl_prelude.cuh)
# The .metal files: tile emit cases/CASE.json --size R=.. --size C=.. --threads T --vector V
#   --programs-per-group 1 --device DEVICE (main at 24497ca; the header line of each names its plan).
import re, glob, json, subprocess, sys
translate, prelude = sys.argv[1], sys.argv[2]
meta = {}
for f in sorted(glob.glob("*.metal")):
    n = f[:-6]
    src = subprocess.run([translate, prelude], stdin=open(f), capture_output=True, text=True, check=True).stdout
    open(n + ".cu", "w").write(src)
    hdr = [l for l in open(f) if l.startswith("// tile:")][0]
    T = int(re.search(r" T=(\d+)", hdr).group(1)); groups = int(re.search(r"groups=(\d+)", hdr).group(1))
    entry = re.search(r"__global__ void (tile_entry_\w+)\(", src).group(1)
    nbuf = len(re.findall(r"void \*__tile_b\d+", src.split("__global__ void")[1].split(")")[0]))
    r, cnt = re.subn(r"^(\s+(?:const )?float\* )(\w+)(\s+[,)])", lambda m: m.group(1) + "__restrict__ " + m.group(2) + m.group(3), src, flags=re.M)
    assert cnt == nbuf, (n, cnt, nbuf)
    open(n + "_R.cu", "w").write(r)
    for v in (n, n + "_R"):
        meta[v] = {"threads": T, "groups": groups, "entry": entry, "nbuf": nbuf}
json.dump(meta, open("meta.json", "w"), indent=1)
