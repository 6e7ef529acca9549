// The order in which `npm test` starts its test files (vitest.config.mjs `sequence.sequencer`).
// Two workers take files from one queue, so a long file started last keeps one core busy alone
// at the end: on a fresh clone vitest knows no durations and starts the largest files (in bytes)
// first, which put test/fuzz/admitted.test.ts (short, and the longest to run) last. Here each file
// is ranked by its duration from vitest's own results cache when there is one (a later run on
// the same checkout), else by the CPU-seconds in WEIGHTS below (each file's own and its children's
// CPU time, from /proc/self/stat around the file, in one whole `vitest run` with a cold kernel
// cache on the 2-core development machine; only the order matters), longest first. A file known
// to neither goes first (as vitest does), so a new suite never waits at the end. The order changes
// no test's outcome. Every test file is listed: the 25 suites added since the last measurement had
// no weight, so on a fresh clone they all ran first and pushed the long files (the admitted fuzz
// among them) back to the middle of the run; measured again at 0800bdf (87 files).
import { BaseSequencer } from "vitest/node";
import path from "node:path";

/** CPU-seconds per test file, relative to the repository root. */
export const WEIGHTS = {
  "test/fuzz/admitted.test.ts": 46,
  "test/fuzz.test.ts": 22,
  "test/run.test.ts": 19,
  "test/export.test.ts": 14,
  "test/typecheck.test.ts": 14,
  "test/workflow.test.ts": 13,
  "test/heldout.test.ts": 12,
  "test/cli.test.ts": 11,
  "test/cuda.test.ts": 9,
  "test/fuzz/host.test.ts": 9,
  "test/hostile.test.ts": 9,
  "test/mutants.test.ts": 8,
  "test/lanes.test.ts": 7,
  "test/replan.test.ts": 7,
  "test/ux.test.ts": 7,
  "test/verdicts.test.ts": 7,
  "test/calibrate.test.ts": 6,
  "test/decoded-programs.test.ts": 6,
  "test/evidence-tools.test.ts": 6,
  "test/npy-io.test.ts": 6,
  "test/values-first.test.ts": 6,
  "test/emit.test.ts": 5,
  "test/ragged.test.ts": 5,
  "test/soundness.test.ts": 5,
  "test/column-cache.test.ts": 4,
  "test/detector.test.ts": 4,
  "test/element-programs.test.ts": 4,
  "test/inplace-cache.test.ts": 4,
  "test/parity.test.ts": 4,
  "test/precompiled-shim.test.ts": 4,
  "test/siblings.test.ts": 4,
  "test/vectors.test.ts": 4,
  "test/wasm-opt.test.ts": 4,
  "test/cli-guards.test.ts": 3,
  "test/core-stamp.test.ts": 3,
  "test/dtypes.test.ts": 3,
  "test/inplace-element.test.ts": 3,
  "test/native.test.ts": 3,
  "test/num.test.ts": 3,
  "test/oracle.test.ts": 3,
  "test/resources.test.ts": 3,
  "test/semantics.test.ts": 3,
  "test/test-settings.test.ts": 3,
  "test/element-chunks.test.ts": 2,
  "test/exports-workflow.test.ts": 2,
  "test/forward.test.ts": 2,
  "test/interleaved.test.ts": 2,
  "test/wasm-pack.test.ts": 2,
  "test/access.test.ts": 1,
  "test/audit.test.ts": 1,
  "test/bench.test.ts": 1,
  "test/bounds.test.ts": 1,
  "test/cost-contiguity.test.ts": 1,
  "test/dependent-bounds.test.ts": 1,
  "test/device-limits.test.ts": 1,
  "test/docs.test.ts": 1,
  "test/emit-controls.test.ts": 1,
  "test/erf.test.ts": 1,
  "test/evidence-audit.test.ts": 1,
  "test/export-partial.test.ts": 1,
  "test/extreme.test.ts": 1,
  "test/facts-reuse.test.ts": 1,
  "test/fallback-pointers.test.ts": 1,
  "test/gather-cache.test.ts": 1,
  "test/glue-resolve.test.ts": 1,
  "test/golden-pipeline.test.ts": 1,
  "test/host-intdiv.test.ts": 1,
  "test/lanes-cost.test.ts": 1,
  "test/legality.test.ts": 1,
  "test/metal-open.test.ts": 1,
  "test/names.test.ts": 1,
  "test/native-build.test.ts": 1,
  "test/partitioned-store.test.ts": 1,
  "test/plan.test.ts": 1,
  "test/printer.test.ts": 1,
  "test/reader.test.ts": 1,
  "test/residency.test.ts": 1,
  "test/reuse.test.ts": 1,
  "test/scan.test.ts": 1,
  "test/sequencer.test.ts": 1,
  "test/solver.test.ts": 1,
  "test/threadgroup-local.test.ts": 1,
  "test/validator.test.ts": 1,
  "test/wasm-host.test.ts": 1,
  "test/web.test.ts": 1,
  "test/zerosign.test.ts": 1,
  "test/fiber-arm64.test.ts": 1,
  "test/prefetch.test.ts": 1,
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
