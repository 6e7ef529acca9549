// The order in which `npm test` starts its test files (vitest.config.mjs `sequence.sequencer`).
// Two workers take files from one queue, so a long file started last keeps one core busy alone
// at the end: on a fresh clone vitest knows no durations and starts the largest files (in bytes)
// first, which put test/fuzz/admitted.test.ts (short, and the longest to run) last. Here each file
// is ranked by its duration from vitest's own results cache when there is one (a later run on
// the same checkout), else by the CPU-seconds in WEIGHTS below (each file's own and its children's
// CPU time, from /proc/self/stat around the file, in one whole `vitest run` with a cold kernel
// cache on the 2-core development machine; only the order matters), longest first. A file known
// to neither goes first (as vitest does), so a new suite never waits at the end. The order changes
// no test's outcome.
import { BaseSequencer } from "vitest/node";
import path from "node:path";

/** CPU-seconds per test file, relative to the repository root. */
export const WEIGHTS = {
  "test/fuzz/admitted.test.ts": 79,
  "test/fuzz.test.ts": 47,
  "test/run.test.ts": 39,
  "test/typecheck.test.ts": 32,
  "test/export.test.ts": 29,
  "test/workflow.test.ts": 28,
  "test/cuda.test.ts": 25,
  "test/hostile.test.ts": 22,
  "test/fuzz/host.test.ts": 19,
  "test/calibrate.test.ts": 18,
  "test/web.test.ts": 16,
  "test/cli.test.ts": 16,
  "test/ux.test.ts": 13,
  "test/replan.test.ts": 13,
  "test/evidence-tools.test.ts": 11,
  "test/emit.test.ts": 10,
  "test/vectors.test.ts": 9,
  "test/soundness.test.ts": 9,
  "test/npy-io.test.ts": 9,
  "test/heldout.test.ts": 8,
  "test/wasm-opt.test.ts": 7,
  "test/dtypes.test.ts": 7,
  "test/detector.test.ts": 7,
  "test/test-settings.test.ts": 5,
  "test/parity.test.ts": 5,
  "test/oracle.test.ts": 5,
  "test/num.test.ts": 5,
  "test/wasm-pack.test.ts": 4,
  "test/semantics.test.ts": 4,
  "test/resources.test.ts": 4,
  "test/native.test.ts": 4,
  "test/core-stamp.test.ts": 4,
  "test/plan.test.ts": 3,
  "test/exports-workflow.test.ts": 3,
  "test/emit-controls.test.ts": 3,
  "test/reuse.test.ts": 2,
  "test/erf.test.ts": 2,
  "test/element-chunks.test.ts": 2,
  "test/extreme.test.ts": 2,
  "test/bench.test.ts": 2,
  "test/threadgroup-local.test.ts": 1,
  "test/reader.test.ts": 1,
  "test/printer.test.ts": 1,
  "test/metal-open.test.ts": 1,
  "test/evidence-audit.test.ts": 1,
  "test/wasm-host.test.ts": 1,
  "test/validator.test.ts": 1,
  "test/solver.test.ts": 1,
  "test/sequencer.test.ts": 1,
  "test/scan.test.ts": 1,
  "test/residency.test.ts": 1,
  "test/native-build.test.ts": 1,
  "test/names.test.ts": 1,
  "test/legality.test.ts": 1,
  "test/host-intdiv.test.ts": 1,
  "test/golden-pipeline.test.ts": 1,
  "test/glue-resolve.test.ts": 1,
  "test/facts-reuse.test.ts": 1,
  "test/docs.test.ts": 1,
  "test/audit.test.ts": 1,
  "test/access.test.ts": 1,
  "test/fiber-arm64.test.ts": 1,
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
