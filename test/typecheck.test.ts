// `npm test` type-checks the sources with `npm run typecheck`'s own commands, as one test file:
// the type check then runs on one core while the other runs test files, instead of before them
// (README "Tests and benchmarks"). A type error anywhere fails this test with tsc's messages.
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { ROOT } from "./helpers/files";

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
const TSC = path.join(ROOT, "node_modules", "typescript", "bin", "tsc");
/** The `tsc ...` commands of `npm run typecheck`, in order. */
const COMMANDS: string[][] = String(pkg.scripts.typecheck)
  .split("&&")
  .map((c) => c.trim().split(/\s+/));

describe("the type check (npm run typecheck)", () => {
  it("is tsc commands only, and npm test runs no other copy of it", () => {
    expect(COMMANDS.length).toBeGreaterThan(0);
    for (const c of COMMANDS) expect(c[0]).toBe("tsc");
    expect(pkg.scripts.test).toBe("vitest run");
  });

  for (const c of COMMANDS) {
    it(c.join(" "), () => {
      const r = spawnSync(process.execPath, [TSC, ...c.slice(1)], { cwd: ROOT, encoding: "utf8" });
      expect(r.status, r.stdout + r.stderr).toBe(0);
    }, 300000);
  }
});
