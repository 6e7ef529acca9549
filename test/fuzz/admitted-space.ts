// The bounded space of widths in which every admitted candidate of a structural document is run
// (issue 12, deliverable 3): used by test/fuzz/admitted.test.ts on the host runtime and by
// scripts/gpu-evidence.ts (`admitted`) on a GPU runtime.
import type { Engine } from "../../shell-node/src/engine";
import type { Case } from "./gen";
import type { StructCase } from "./structural";

/** The solver's own choice, then P in {1, 2, 3} (S = 1), V in {1, 4}, U in {1, 2}, cached and uncached,
 *  and two programs-on-lanes mappings. */
export const SPACE: Record<string, unknown>[] = [{}];
for (const P of [1, 2, 3]) for (const V of [1, 4]) for (const U of [1, 2]) for (const cacheInput of [true, false]) {
  SPACE.push({ programsPerGroup: P, threads: 32 * P, vector: V, unroll: U, cacheInput });
}
// programs on lanes (V = 1): P not dividing 32, and P = 8 with two SIMD groups per program
SPACE.push({ layout: "programs-on-lanes", programsPerGroup: 3, threads: 96, unroll: 2 });
SPACE.push({ layout: "programs-on-lanes", programsPerGroup: 8, threads: 512, cacheInput: false });

export interface Kernel {
  c: Case;
  doc: number;
  realization: string;
  /** The engine's emit response for `c` with `candidates: true`: the request HostBatch makes. */
  emitted: any;
}

/** The distinct admitted kernels of one document over the bounded space. A document whose
 *  `parallel` claim is false is held to the oracle too: its serial fallback relies on no
 *  `parallel` claim (one thread runs the programs in order). */
export function admittedKernels(js: Engine, sc: StructCase, index: number): Kernel[] {
  const text = JSON.stringify(sc.doc);
  const seen = new Set<string>();
  const out: Kernel[] = [];
  for (const options of SPACE) {
    const e = js.call({ command: "emit", document: text, options: { ...options, candidates: true } });
    if (!e.ok) continue;
    if (seen.has(e.msl)) continue;
    seen.add(e.msl);
    out.push({ c: { doc: sc.doc, options: options as any, family: "reduction" }, doc: index, realization: e.plan.realization, emitted: e });
  }
  return out;
}
