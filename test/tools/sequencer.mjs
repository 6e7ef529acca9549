// The order in which `npm test` starts its test files (vitest.config.mjs `sequence.sequencer`).
// Two workers take files from one queue, so a long file started last keeps one core busy alone
// at the end: on a fresh clone vitest knows no durations and starts the largest files (in bytes)
// first, which put test/fuzz/admitted.test.ts (short, and the longest to run) last. Here each file
// is ranked by its duration from vitest's own results cache when there is one (a later run on
// the same checkout), else by the CPU-seconds in WEIGHTS below (measured one file at a time with
// /usr/bin/time on the 2-core development machine, cold kernel cache; only the order matters),
// longest first. A file known to neither goes first (as vitest does), so a new suite never waits
// at the end. The order changes no test's outcome.
import { BaseSequencer } from "vitest/node";
import path from "node:path";

/** CPU-seconds per test file, relative to the repository root. */
export const WEIGHTS = {
  "test/fuzz/admitted.test.ts": 84,
  "test/export.test.ts": 36,
  "test/run.test.ts": 34,
  "test/workflow.test.ts": 27,
  "test/fuzz.test.ts": 27,
  "test/vectors.test.ts": 23,
  "test/hostile.test.ts": 23,
  "test/fuzz/host.test.ts": 21,
  "test/calibrate.test.ts": 20,
  "test/replan.test.ts": 20,
  "test/soundness.test.ts": 20,
  "test/evidence-tools.test.ts": 19,
  "test/ux.test.ts": 17,
  "test/web.test.ts": 16,
  "test/cli.test.ts": 15,
  "test/typecheck.test.ts": 15,
  "test/emit.test.ts": 14,
  "test/cuda.test.ts": 12,
  "test/detector.test.ts": 11,
  "test/npy-io.test.ts": 10,
  "test/semantics.test.ts": 9,
  "test/dtypes.test.ts": 8,
  "test/native.test.ts": 7,
  "test/exports-workflow.test.ts": 7,
  "test/test-settings.test.ts": 7,
  "test/emit-controls.test.ts": 7,
  "test/parity.test.ts": 6,
  "test/reuse.test.ts": 6,
  "test/oracle.test.ts": 5,
  "test/resources.test.ts": 5,
  "test/plan.test.ts": 5,
  "test/evidence-audit.test.ts": 5,
  "test/core-stamp.test.ts": 3,
  "test/num.test.ts": 4,
  "test/bench.test.ts": 4,
  "test/threadgroup-local.test.ts": 4,
  "test/solver.test.ts": 4,
  "test/erf.test.ts": 4,
  "test/golden-pipeline.test.ts": 3,
  "test/native-build.test.ts": 3,
  "test/reader.test.ts": 3,
  "test/printer.test.ts": 3,
  "test/audit.test.ts": 3,
  "test/validator.test.ts": 3,
  "test/legality.test.ts": 3,
  "test/metal-open.test.ts": 3,
  "test/docs.test.ts": 3,
  "test/host-intdiv.test.ts": 3,
  "test/scan.test.ts": 3,
  "test/wasm-host.test.ts": 3,
  "test/fiber-arm64.test.ts": 2,
  "test/access.test.ts": 2,
  "test/glue-resolve.test.ts": 2,
};

/** The expected seconds of `file` (absolute): vitest's last duration, else WEIGHTS, else Infinity. */
export function expectedSeconds(root, file, cachedMs) {
  if (typeof cachedMs === "number") return cachedMs / 1000;
  const rel = path.relative(root, file).split(path.sep).join("/");
  return Object.prototype.hasOwnProperty.call(WEIGHTS, rel) ? WEIGHTS[rel] : Infinity;
}

export default class LongestFirstSequencer extends BaseSequencer {
  async sort(files) {
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    const key = (spec) => {
      const name = `${spec.project.name}:${path.relative(root, spec.moduleId)}`;
      const result = cache.getFileTestResults(name);
      return expectedSeconds(root, spec.moduleId, result && !result.failed ? result.duration : undefined);
    };
    const keyed = files.map((spec, i) => ({ spec, i, seconds: key(spec) }));
    // longest first; ties (unknown files among them) keep vitest's discovery order
    keyed.sort((a, b) => (b.seconds === a.seconds ? a.i - b.i : b.seconds > a.seconds ? 1 : -1));
    return keyed.map((k) => k.spec);
  }
}
