// The main job (`npm start`): every built-in case through both engines of the core, checked
// against the FP64 oracle. Later stages (plan, emit, run) extend the table as they land.
import { loadEngine } from "../engine";
import { EXIT_FAILED, EXIT_OK, printJson, table } from "../io";
import { builtinCases } from "./cases";
import { summarise } from "./evaluate";

export interface SuiteRow {
  name: string;
  valid: boolean;
  enginesAgree: boolean;
  outputs: string;
  verdict: "pass" | "fail";
}

export async function suiteCommand(seed: number, json: boolean): Promise<number> {
  const wasm = await loadEngine("wasm");
  const js = await loadEngine("js");
  const cases = builtinCases(wasm);
  const rows: SuiteRow[] = [];
  for (const c of cases) {
    const req = JSON.stringify({ command: "canonical", document: c.text });
    const a = wasm.callText(req);
    const b = js.callText(req);
    const r = JSON.parse(a);
    const doc = r.ok ? JSON.parse(r.text) : null;
    const outs = doc ? summarise(doc, seed) : [];
    const valid = r.ok === true;
    const agree = a === b;
    rows.push({
      name: c.name,
      valid,
      enginesAgree: agree,
      outputs: outs.map((o) => `${o.name}[${o.written}]`).join(" "),
      verdict: valid && agree && outs.every((o) => o.written === o.elements) ? "pass" : "fail",
    });
  }
  if (json) printJson(rows);
  else {
    const t = [["case", "valid", "js = wasm", "outputs (oracle)", "verdict"]];
    for (const r of rows) t.push([r.name, r.valid ? "yes" : "NO", r.enginesAgree ? "yes" : "NO", r.outputs, r.verdict]);
    process.stdout.write(table(t) + "\n");
    const failed = rows.filter((r) => r.verdict !== "pass").length;
    process.stdout.write(`${rows.length - failed} passed, ${failed} failed\n`);
  }
  return rows.every((r) => r.verdict === "pass") ? EXIT_OK : EXIT_FAILED;
}
