#!/usr/bin/env node
// confirm-calibration.mjs: the confirmation of a calibration on the GPU, in two halves.
//   node scripts/confirm-calibration.mjs list CALIBRATED.json BASE.json SWEEP_DIR... > bench/confirm-calibration.json
//       a tile-time-list/1: per swept case and shape, the automatic plan under the calibrated
//       record ("calibrated"), under the base record ("uncalibrated") and the sweep's measured best
//       candidate with its explicit widths ("sweep best"), so one `tile time` run times the three
//       in the same rounds
//   node scripts/confirm-calibration.mjs report TIMES.json > confirm.md
//       per case and shape: the three times and the calibrated pick over the best / over the
//       uncalibrated pick (µs per dispatch, the tile time metric)
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

const [cmd, ...args] = process.argv.slice(2);
if (cmd === "list") {
  const [calFile, baseFile, ...dirs] = args;
  const cal = JSON.parse(fs.readFileSync(calFile, "utf8"));
  const base = JSON.parse(fs.readFileSync(baseFile, "utf8"));
  const entries = [];
  for (const d of dirs) {
    // committed evidence may hold the sweep gzip-compressed (evidence/h200/README.md)
    const plain = path.join(d, "sweep.json");
    const s = JSON.parse(fs.existsSync(plain) ? fs.readFileSync(plain, "utf8") : zlib.gunzipSync(fs.readFileSync(plain + ".gz")).toString("utf8"));
    const shape = Object.values(s.sizes).join("x");
    const best = s.candidates.find((c) => c.key === s.summary.best);
    entries.push({ id: `${s.case} ${shape} calibrated`, case: s.case, sizes: s.sizes, options: { device: cal } });
    entries.push({ id: `${s.case} ${shape} uncalibrated`, case: s.case, sizes: s.sizes, options: { device: base } });
    entries.push({ id: `${s.case} ${shape} sweep best`, case: s.case, sizes: s.sizes, options: { ...best.options, device: base } });
  }
  process.stdout.write(JSON.stringify({ format: "tile-time-list/1", entries }, null, 1) + "\n");
} else if (cmd === "report") {
  const t = JSON.parse(fs.readFileSync(args[0], "utf8"));
  const by = new Map();
  for (const e of t.entries) {
    const [kase, shape, ...rest] = e.id.split(" ");
    const k = `${kase} ${shape}`;
    if (!by.has(k)) by.set(k, {});
    by.get(k)[rest.join(" ")] = e;
  }
  const f = (x, d = 2) => (x === null || x === undefined ? "n/a" : x.toFixed(d));
  const out = [`# Confirmation: calibrated picks re-timed beside the sweep's best`, "", `- \`${t.command}\` on ${t.runtime.kind} (${t.runtime.deviceName}), metric \`${t.metric}\`${t.timesAreGpu ? "" : " (host wall clock: not GPU times)"}`, "",
    "| case, shape | calibrated plan | µs | uncalibrated plan | µs | sweep best | µs | calibrated / best | calibrated / uncalibrated |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"];
  const ratios = [];
  for (const [k, r] of by) {
    const c = r.calibrated, u = r.uncalibrated, b = r["sweep best"];
    const rb = c?.medianUs && b?.medianUs ? c.medianUs / b.medianUs : null;
    if (rb !== null) ratios.push(rb);
    out.push(`| ${k} | ${c?.mapping ?? "-"} | ${f(c?.medianUs)} | ${u?.mapping ?? "-"} | ${f(u?.medianUs)} | ${b?.mapping ?? "-"} | ${f(b?.medianUs)} | ${f(rb, 3)} | ${c?.medianUs && u?.medianUs ? f(c.medianUs / u.medianUs, 3) : "n/a"} |`);
  }
  ratios.sort((a, b) => a - b);
  const med = ratios.length ? (ratios.length % 2 ? ratios[ratios.length >> 1] : (ratios[ratios.length / 2 - 1] + ratios[ratios.length / 2]) / 2) : null;
  out.push("", `calibrated / best: median ${f(med, 3)}, worst ${f(ratios.length ? ratios[ratios.length - 1] : null, 3)} over ${ratios.length} shapes (not left out: the calibration saw these shapes)`, "");
  process.stdout.write(out.join("\n"));
} else {
  process.stderr.write("usage: confirm-calibration.mjs list CALIBRATED BASE SWEEP_DIR... | report TIMES.json\n");
  process.exit(2);
}
