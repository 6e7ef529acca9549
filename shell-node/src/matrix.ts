// The validation matrix (shell-node/matrix.json) turned into runnable entries: a built-in case,
// its sizes, plan options and an optional structural transform (a nonzero row origin).
import fs from "node:fs";
import path from "node:path";
import { Engine } from "./engine";
import { packageRoot } from "./root";

export interface MatrixEntry {
  id: string;
  case: string;
  kind: "reduction" | "element" | "builtin";
  text: string;
  options: Record<string, unknown>;
  covers: string;
}

/**
 * Moves the top-level parallel loop to start at `origin`: `in: [origin, R]`, and every buffer
 * dimension sized by the loop's extent size grows by `origin` (a new size `<R>_rows`). Purely
 * structural: it looks at the loop and the shapes, never at names of cases or buffers.
 */
export function withRowOrigin(doc: any, origin: number): any {
  const d = JSON.parse(JSON.stringify(doc));
  const top = d.body[0];
  const extent = top.in[1];
  if (typeof extent !== "string" || top.in[0] !== 0) throw new Error("rowOrigin needs a loop [0, SIZE]");
  const total = `${extent}_rows`;
  d.sizes[total] = d.sizes[extent] + origin;
  top.in[0] = origin;
  for (const p of d.params) if (p.shape[0] === extent) p.shape[0] = total;
  return d;
}

export function loadMatrix(engine: Engine, full: boolean): MatrixEntry[] {
  const spec = JSON.parse(fs.readFileSync(path.join(packageRoot(), "shell-node", "matrix.json"), "utf8"));
  const cases = new Map<string, string>(engine.call({ command: "cases" }).cases.map((c: any) => [c.name, c.text]));
  const out: MatrixEntry[] = [];
  const make = (e: any, kind: "reduction" | "element"): void => {
    if (e.full && !full) return;
    const base = cases.get(e.case);
    if (!base) throw new Error(`matrix entry ${e.id}: no built-in case ${e.case}`);
    let doc = JSON.parse(base);
    doc.sizes = { ...doc.sizes, ...e.sizes };
    if (e.rowOrigin) doc = withRowOrigin(doc, e.rowOrigin);
    out.push({ id: e.id, case: e.case, kind, text: JSON.stringify(doc), options: e.options ?? {}, covers: e.covers ?? "" });
  };
  for (const e of spec.reductions) make(e, "reduction");
  for (const e of spec.elements) make(e, "element");
  return out;
}

/** The built-in cases at their default sizes, planned automatically. */
export function builtinEntries(engine: Engine): MatrixEntry[] {
  return engine.call({ command: "cases" }).cases.map((c: any) => ({ id: `${c.name}/default`, case: c.name, kind: "builtin", text: c.text, options: {}, covers: "built-in case, automatic plan" }));
}
