// tile device : the device description the planner uses (the default, or --device merged over
// it), every field documented, and the presets in devices/*.json.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, UsageError, formatDiagnostic, stripBom, indent, printJson, table } from "../io";
import { packageRoot } from "../root";

export interface Preset {
  name: string;
  file: string;
  description: any;
}

/** The presets folder: one device description per JSON file. */
export function presetsDir(): string {
  return path.join(packageRoot(), "devices");
}

export function listPresets(): Preset[] {
  let files: string[] = [];
  try {
    files = fs.readdirSync(presetsDir()).filter((f) => f.endsWith(".json")).sort();
  } catch {
    return [];
  }
  return files.map((f) => {
    const file = path.join(presetsDir(), f);
    return { name: f.slice(0, -5), file, description: JSON.parse(fs.readFileSync(file, "utf8")) };
  });
}

/** `--device X`: a path to a description file, or the name of a preset in devices/. */
export function readDeviceArg(arg: string): unknown {
  let file = arg;
  if (!fs.existsSync(file)) {
    const preset = path.join(presetsDir(), `${arg}.json`);
    if (!/[\\/]/.test(arg) && fs.existsSync(preset)) file = preset;
    else {
      const names = listPresets().map((p) => p.name).join(", ");
      throw new UsageError(`--device ${arg}: no such file and no such preset (presets: ${names})`);
    }
  }
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`cannot read the device description ${arg}`);
  }
  try {
    return JSON.parse(stripBom(text));
  } catch {
    throw new UsageError(`the device description ${arg} is not valid JSON`);
  }
}

export function deviceCommand(engine: Engine, device: unknown | undefined, deviceArg: string | undefined, json: boolean): number {
  const r = engine.call({ command: "device", options: device === undefined ? {} : { device } });
  const presets = listPresets().map((p) => ({ name: p.name, device: p.description.name ?? "", source: p.description.source ?? "" }));
  if (json) {
    printJson({ ok: r.ok, device: r.device, fields: r.fields, presets, diagnostics: r.diagnostics });
    return r.ok ? EXIT_OK : EXIT_FAILED;
  }
  const label = deviceArg ? `--device ${deviceArg} (fields not given keep the default)` : "the default (no --device)";
  process.stdout.write(`device description: ${label}\n`);
  const rows = [["field", "value", "unit", "meaning"]];
  for (const f of r.fields) {
    const v = r.device[f.name];
    const shown = Array.isArray(v) ? `[${v.join(", ")}]` : f.name === "source" ? "(below)"
      : v === undefined ? "(not given)"
      : v !== null && typeof v === "object" ? Object.entries(v).filter(([k]) => k !== "source").map(([k, x]) => `${k} ${x}`).join(", ") : String(v);
    rows.push([f.name, shown, f.unit, f.meaning]);
  }
  process.stdout.write(indent(table(rows), "  ") + "\n");
  process.stdout.write(`  source: ${r.device.source}\n`);
  if (r.device.costModel?.source) process.stdout.write(`  cost model: ${r.device.costModel.source}\n`);
  for (const d of r.diagnostics ?? []) process.stdout.write(indent(formatDiagnostic(deviceArg ?? "device", d), "  ") + "\n");
  process.stdout.write(`\npresets (--device NAME; files in ${path.relative(process.cwd(), presetsDir()) || "devices"}/):\n`);
  const prow = [["name", "device", "gpuCores", "bandwidth GB/s", "clock MHz"]];
  for (const p of listPresets()) prow.push([p.name, p.description.name ?? "", String(p.description.gpuCores ?? "-"), String(p.description.bandwidthBytesPerNs ?? "-"), String(p.description.clockMhz ?? "-")]);
  process.stdout.write(indent(table(prow), "  ") + "\n");
  process.stdout.write("  sources: tile device --device NAME (or --json) prints each preset's source.\n");
  return r.ok ? EXIT_OK : EXIT_FAILED;
}
