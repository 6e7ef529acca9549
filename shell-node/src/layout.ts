// The cooperative layout as the shell prints it: nothing for the design's default (the workers of
// a program on neighbouring threads), " programs-on-lanes" for the other (core/plan/plan.ts).

/** " programs-on-lanes" when a cooperative mapping puts neighbouring programs on neighbouring
 *  threads, else "". */
export function layoutSuffix(m: any): string {
  return m && m.layout === "programs-on-lanes" ? " programs-on-lanes" : "";
}
