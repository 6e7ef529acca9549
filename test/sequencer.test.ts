// The order `npm test` starts its files in (test/tools/sequencer.mjs): longest first by vitest's
// own durations where it has them, else by the measured weights; files known to neither first.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import path from "node:path";
// @ts-expect-error: a plain ES module of the test tools, without type declarations
import LongestFirstSequencer, { WEIGHTS } from "./tools/sequencer.mjs";
import { ROOT } from "./helpers/files";

type Spec = { moduleId: string; project: { name: string } };

/** The sequencer's order of `files` (relative paths), with vitest's cached durations `cached`
 *  (ms, by relative path; `failed` marks a failed last run). */
async function order(files: string[], cached: Record<string, { duration: number; failed?: boolean }> = {}): Promise<string[]> {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => {
        const rel = key.slice(key.indexOf(":") + 1);
        const c = cached[rel];
        return c ? { duration: c.duration, failed: c.failed ?? false } : undefined;
      },
      getFileStats: () => undefined,
    },
  };
  const specs: Spec[] = files.map((f) => ({ moduleId: path.join(ROOT, f), project: { name: "" } }));
  const sorted: Spec[] = await new LongestFirstSequencer(ctx).sort(specs);
  return sorted.map((s) => path.relative(ROOT, s.moduleId));
}

describe("the test-file order", () => {
  it("starts the heaviest files first and files it does not know before all of them", async () => {
    const files = ["test/access.test.ts", "test/emit.test.ts", "test/new-suite.test.ts", "test/fuzz/admitted.test.ts", "test/run.test.ts", "test/another-new.test.ts"];
    expect(await order(files)).toEqual([
      "test/new-suite.test.ts", "test/another-new.test.ts", // unknown: first, in discovery order
      "test/fuzz/admitted.test.ts", "test/run.test.ts", "test/emit.test.ts", "test/access.test.ts",
    ]);
  });

  it("prefers vitest's own durations from an earlier run, except a failed run's", async () => {
    const files = ["test/fuzz/admitted.test.ts", "test/access.test.ts", "test/run.test.ts", "test/emit.test.ts"];
    const cached = {
      "test/access.test.ts": { duration: 200_000 }, // 200 s last time: now the longest
      "test/fuzz/admitted.test.ts": { duration: 1_000 },
      "test/run.test.ts": { duration: 500_000, failed: true }, // a failed run's duration is not trusted
    };
    expect(await order(files, cached)).toEqual(["test/access.test.ts", "test/run.test.ts", "test/emit.test.ts", "test/fuzz/admitted.test.ts"]);
  });

  it("names only test files that exist", () => {
    const missing = Object.keys(WEIGHTS).filter((f) => !fs.existsSync(path.join(ROOT, f)));
    expect(missing).toEqual([]);
    expect(Object.keys(WEIGHTS).every((f) => f.endsWith(".test.ts"))).toBe(true);
  });
});
