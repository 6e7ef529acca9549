// Writes every built-in case to cases/<name>.json: exactly the builder's output text.
//
// Run: TILE_WRITE_CASES=1 npx vitest run test/oracle.test.ts
// (the test file calls writeCases() when that flag is set, then checks the files as usual).
// Review the diff of cases/ after regenerating.
import "assemblyscript/std/portable/index.js";
import { writeFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { buildCase, caseNames } from "../../core/builders/index";

/** Writes each case into `dir` and returns the names written. */
export function writeCases(dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const names = caseNames();
  for (let i = 0; i < names.length; i++) {
    writeFileSync(join(dir, names[i] + ".json"), buildCase(names[i]));
  }
  return names;
}
