import fs from "node:fs";
import { execFileSync } from "node:child_process";
const T = "node /work/main/shell-node/bin/tile.mjs";
const dev = "/work/main/devices/nvidia-h200-calibrated.json";
const P = "/work/main/shell-native/cuda/msl_prelude.cuh";
const sh = (c) => execFileSync("bash", ["-c", c], { encoding: "utf8", maxBuffer: 1 << 26 });
const meta = {};
function add(name, msl, nbuf, R, C, kind) {
  fs.writeFileSync(name + ".metal", msl);
  sh(`/tmp/tct ${P} < ${name}.metal > ${name}.cu`);
  const head = msl.match(/groups=(\d+)/), thr = msl.match(/ T=(\d+)/);
  const entry = sh(`/tmp/tct ${P} --entries < ${name}.metal`).match(/void (tile_entry_\w+)/)[1];
  meta[name] = { entry, groups: Number(head[1]), threads: Number(thr[1]), nbuf, R, C, kind };
}
for (const [R, C] of [[4096, 4096], [1024, 4096]]) {
  const tag = `${R}`;
  const emit = (doc) => sh(`${T} emit ${doc} --device ${dev} --size R=${R} --size C=${C}`);
  const smi = emit("/work/main/evidence/h200/run90/docs90/softmax_inplace.json");
  const sm = emit("/work/main/cases/softmax.json");
  const lni = emit("/work/main/evidence/h200/run90/docs90/layernorm_inplace.json");
  add(`smi_${tag}`, smi, 1, R, C, "smi");
  add(`sm_${tag}`, sm, 2, R, C, "sm");
  add(`lni_${tag}`, lni, 1, R, C, "lni");
  // packed fill: the built-in's fill, reading X through a const packed pointer
  const fillScalar = /      for \(int j = 0; j < 4; \+\+j\) \{\n        const int c = tile_v0 \+ j;\n        cache_X\[k \* 8 \+ tile_h \* 4 \+ j\] = X\[r \* (\d+) \+ c\];\n      \}\n/;
  if (!fillScalar.test(smi)) throw new Error("fill pattern");
  const fillPacked = (s) => s.replace(fillScalar, (_m, n) => `      const packed_float4 w0 = *((device const packed_float4*)(&X[r * ${n} + tile_v0]));\n      for (int j = 0; j < 4; ++j) cache_X[k * 8 + tile_h * 4 + j] = w0[j];\n`);
  const storeScalar = /      for \(int j = 0; j < 4; \+\+j\) \{\n        const int c = tile_v0 \+ j;\n        if \(live\) \{ X\[r \* (\d+) \+ c\] = cache_X\[k \* 8 \+ tile_h \* 4 \+ j\] \/ s; \}\n      \}\n/;
  if (!storeScalar.test(smi)) throw new Error("store pattern");
  const storePacked = (s) => s.replace(storeScalar, (_m, n) => `      packed_float4 y;\n      for (int j = 0; j < 4; ++j) y[j] = cache_X[k * 8 + tile_h * 4 + j] / s;\n      if (live) { *((device packed_float4*)(&X[r * ${n} + tile_v0])) = y; }\n`);
  add(`smi_pf_${tag}`, fillPacked(smi), 1, R, C, "smi");
  add(`smi_ps_${tag}`, storePacked(smi), 1, R, C, "smi");
  add(`smi_pb_${tag}`, storePacked(fillPacked(smi)), 1, R, C, "smi");
  // the same scalar accesses, exp replaced by the fast one (timing only: compute-bound?)
  add(`smi_fexp_${tag}`, smi.replace("precise::exp(", "fast::exp("), 1, R, C, "smi");
  add(`smi_nonan_${tag}`, smi.replace(/tile_nan_m = max\(tile_nan_m, [^;]*;/, "").replace("const float m = tile_simd_max(", "const float m = simd_max(").replace("const float part_m = tile_simd_max(", "const float part_m = simd_max("), 1, R, C, "smi");
}
fs.writeFileSync("meta.json", JSON.stringify(meta, null, 1));
console.log(Object.keys(meta).join(" "));
