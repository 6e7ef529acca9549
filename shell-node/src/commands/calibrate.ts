// tile calibrate SWEEP_DIR... -o device.json [--device base.json|preset] : fits the cost model's
// coefficients to sweeps (bench/calibrate.ts documents the method), writes the device record
// (the base record with a fitted "costModel", which --device reads) and beside it
// <out>.calibration.md / .calibration.json (or --report STEM: STEM.calibration.md/.json): the fit reported by leaving one size (R x C) out at a time.
// Exit 0 when written (whether or not the targets are met: the report says), 2 for bad usage.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { checkOutputFile, ensureDir, EXIT_OK, printJson, UsageError, writeOutput } from "../io";
import { calibrate, CALIBRATION_FORMAT, Coefficients, DEFAULTS, lambdaText, predict, readShape, renderCalibration } from "../bench/calibrate";
import { candidateKey } from "../bench/sweep";
import { readSweepText } from "../bench/sweep-file";
import { readDeviceArg } from "./device";

export function calibrateCommand(engine: Engine, dirs: string[], out: string, deviceArg: string | undefined, json: boolean, argv: string[], report?: string, allowHostTimes = false): number {
  if (!out) throw new UsageError("calibrate needs -o FILE: where to write the calibrated device record");
  // the record's and the report's folders are created before the fit (never recursively: a
  // recursive mkdir under /proc retries forever), and a path that cannot be written is refused now
  ensureDir(path.dirname(path.resolve(out)));
  checkOutputFile(out);
  const reportStem = report ?? out.replace(/\.json$/, "");
  ensureDir(path.dirname(path.resolve(reportStem)));
  checkOutputFile(`${reportStem}.calibration.md`);
  checkOutputFile(`${reportStem}.calibration.json`);
  let base: any = deviceArg ? readDeviceArg(deviceArg) : undefined;
  if (base === undefined) {
    try {
      base = JSON.parse(readSweepText(dirs[0] ?? ""))?.device?.description ?? {};
    } catch {
      base = {};
    }
  }
  const shapes = dirs.map((d) => readShape(engine, d, base));
  // a cost model for a GPU is fitted to GPU times: host-runtime sweeps (CPU wall clock) only on
  // request, and the record and its report then say so
  const host = shapes.filter((s) => !s.gpu).map((s) => s.dir);
  if (host.length > 0 && !allowHostTimes) throw new UsageError(`${host.join(", ")} ${host.length === 1 ? "holds" : "hold"} host times (the CPU runtime's wall clock), not GPU times; a GPU's cost model is fitted to GPU sweeps (tile sweep --runtime metal or cuda), or pass --allow-host-times to fit these anyway (the record then says so)`);
  for (const d of host) process.stderr.write(`tile calibrate: warning: ${d} holds host times (the CPU runtime), not GPU times\n`);
  const start: Coefficients = { ...DEFAULTS };
  for (const k of Object.keys(DEFAULTS)) if (typeof base?.costModel?.[k] === "number") (start as any)[k] = base.costModel[k];
  const r = calibrate(shapes, start);
  const command = ["tile", ...argv].join(" ");
  const { costModel: _old, ...rest } = base ?? {};
  const record = {
    ...rest,
    costModel: {
      ...r.coefficients,
      error: r.error,
      source: `tile calibrate, ${new Date().toISOString().slice(0, 10)}: fitted to ${shapes.length} sweeps${host.length > 0 ? ` (${host.length} of them host-runtime CPU times, not GPU times: --allow-host-times)` : ""} (${shapes.map((s) => s.id).join("; ")}) on the model's terms, relative errors, ridge on the log-coefficients toward the base record's with λ = ${lambdaText(r.lambda)} chosen by leaving one size out at a time; error = median relative error between candidates of a left-out sweep. Command: ${command}`,
    },
  };
  writeOutput(out, JSON.stringify(record, null, 2) + "\n");

  // the planner with the written record: its pick among all candidates, and whether the core's
  // totals are the fitted model's (the record is read with f32 precision, so are the coefficients here)
  const verify: string[] = [];
  let worstDiff = 0;
  for (const s of shapes) {
    const sweep = JSON.parse(readSweepText(s.dir));
    const p = engine.call({ command: "plan", document: sweep.document, options: { sizes: sweep.sizes, candidates: true, device: record } });
    if (!p.ok) {
      verify.push(`${s.id}: not planned with the written record`);
      continue;
    }
    for (const f of s.candidates) {
      const c = (p.candidates ?? []).find((x: any) => candidateKey(x.mapping) === f.key);
      if (c) worstDiff = Math.max(worstDiff, Math.abs(c.cost.total - predict(f, { ...r.coefficients, error: 0 } as any)) / c.cost.total);
    }
    const key = candidateKey(p.mapping);
    const m = s.candidates.find((f) => f.key === key);
    const best = Math.min(...s.candidates.map((f) => f.measuredNs));
    verify.push(`${s.id}: the planner picks ${key}${m ? ` (measured ${(m.measuredNs / 1000).toFixed(2)} µs, regret ${(m.measuredNs / best).toFixed(3)}, in-sample)` : " (not timed in this sweep)"}${(p.notes ?? []).length ? `; note: ${p.notes.join(" ")}` : ""}`);
  }
  verify.push(`largest relative difference between the core's totals with the written record and the fitted model: ${worstDiff.toExponential(2)}`);

  // the report goes beside the record unless --report names another stem (a record in devices/
  // must not have .json files beside it: every .json there is a preset)
  const stem = report ?? out.replace(/\.json$/, "");
  const md = renderCalibration(r, { command, sweeps: dirs, out, base: deviceArg ?? "the sweeps' device record", verify });
  writeOutput(`${stem}.calibration.md`, md);
  writeOutput(`${stem}.calibration.json`, JSON.stringify({ format: CALIBRATION_FORMAT, command, sweeps: dirs, record: out, ...r, verify }, null, 1) + "\n");
  if (json) printJson({ record: out, report: `${stem}.calibration.md`, summary: r.summary, error: r.error, coefficients: r.coefficients });
  else process.stdout.write(md);
  return EXIT_OK;
}
