// tile plan FILE... : legality, widths and cost for each document (one process for all files).
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, EXIT_USAGE, formatDiagnostic, printJson, readDocument, table } from "../io";
import { PlanOptions } from "../options";

/** Plans one file; a file that is not UTF-8 yields a plan-shaped failure with TIR027. */
export function planFile(engine: Engine, file: string, options: PlanOptions): any {
  const src = readDocument(file);
  if (src.text === null) return { file, name: "", ok: false, realization: "", rules: [], rejections: [], diagnostics: [src.diagnostic] };
  return { file, ...engine.call({ command: "plan", document: src.text, options }) };
}

/** 0 planned, 1 understood but rejected, 2 invalid document. */
export function planExit(p: any): number {
  if (p.ok) return EXIT_OK;
  const docError = (p.diagnostics ?? []).some((d: any) => d.severity === "error" && String(d.code).startsWith("TIR"));
  return docError ? EXIT_USAGE : EXIT_FAILED;
}

export function mappingText(p: any): string {
  const m = p.mapping ?? {};
  if (p.realization === "fused-elementwise") return `block=1x${m.block} V=${m.V} rows=${m.rows} cols=${m.cols} groups=${m.groups}`;
  if (p.realization === "serial-program") return `T=${m.T} groups=${m.groups}`;
  return `P=${m.P} S=${m.S} W=${m.W} T=${m.T} V=${m.V} U=${m.U} groups=${m.groups}${m.cached ? " cached" : ""}`;
}

export function planCommand(engine: Engine, files: string[], options: PlanOptions, json: boolean): number {
  const plans = files.map((f) => planFile(engine, f, options));
  if (json) printJson(files.length === 1 ? plans[0] : plans);
  else {
    for (const p of plans) {
      if (!p.ok) {
        process.stdout.write(`${p.file}: not planned\n`);
        for (const d of p.diagnostics ?? []) process.stdout.write("  " + formatDiagnostic(p.file, d) + "\n");
        continue;
      }
      process.stdout.write(`${p.file}: ${p.name}: ${p.realization}  ${mappingText(p)}  cost ${p.cost.total}\n`);
      const rows = [["rule", "verdict", "reason"]];
      for (const r of p.rules) rows.push([r.id, r.verdict, r.reason + (r.pointer ? `  (${r.pointer})` : "")]);
      process.stdout.write(table(rows).replace(/^/gm, "  ") + "\n");
      for (const r of p.rejections) process.stdout.write(`  rejected ${r.realization}: ${r.message}\n`);
      for (const n of p.notes ?? []) process.stdout.write(`  note: ${n}\n`);
      for (const d of p.diagnostics ?? []) process.stdout.write("  " + formatDiagnostic(p.file, d) + "\n");
    }
  }
  return Math.max(...plans.map(planExit));
}
