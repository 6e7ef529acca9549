// tile cases [--write DIR] : lists the built-in cases, or writes them as canonical JSON files.
import fs from "node:fs";
import path from "node:path";
import { Engine } from "../engine";
import { EXIT_FAILED, EXIT_OK, ensureDir, printJson, writeOutput } from "../io";

export interface BuiltinCase {
  name: string;
  ok: boolean;
  text: string;
}

export function builtinCases(engine: Engine): BuiltinCase[] {
  return engine.call({ command: "cases" }).cases;
}

export function casesCommand(engine: Engine, writeDir: string | undefined, json: boolean): number {
  const cases = builtinCases(engine);
  if (writeDir) {
    ensureDir(writeDir);
    for (const c of cases) writeOutput(path.join(writeDir, c.name + ".json"), c.text);
  }
  if (json) printJson(cases.map((c) => ({ name: c.name, ok: c.ok, file: writeDir ? path.join(writeDir, c.name + ".json") : null })));
  else for (const c of cases) process.stdout.write(`${c.name}${writeDir ? "  -> " + path.join(writeDir, c.name + ".json") : ""}\n`);
  return cases.every((c) => c.ok) ? EXIT_OK : EXIT_FAILED;
}
