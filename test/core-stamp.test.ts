// `npm test`'s pretest skips build:core only when its outputs are up to date (scripts/core-stamp.mjs):
// in a temporary copy of the inputs, any edit to an input or an output makes the build run again.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./helpers/files";
import * as stamp from "../scripts/core-stamp.mjs";

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));

describe("the build:core record (scripts/core-stamp.mjs)", () => {
  let dir = "";
  /** Runs `node scripts/core-stamp.mjs ensure` in the copy; true when it ran build:core. */
  const ensure = (): boolean => {
    const marker = path.join(dir, "built.txt");
    fs.rmSync(marker, { force: true });
    const r = spawnSync(process.execPath, ["scripts/core-stamp.mjs", "ensure"], { cwd: dir, encoding: "utf8" });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    return fs.existsSync(marker);
  };
  const edit = (rel: string, f: (s: string) => string) => {
    const p = path.join(dir, rel);
    fs.writeFileSync(p, f(fs.readFileSync(p, "utf8")));
  };

  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-core-stamp-"));
    for (const d of [...stamp.INPUT_DIRS, "scripts"]) {
      fs.cpSync(path.join(ROOT, d), path.join(dir, d), { recursive: true });
    }
    for (const f of stamp.INPUT_FILES) fs.cpSync(path.join(ROOT, f), path.join(dir, f));
    // A stand-in build:core with the real record step: it rewrites the outputs and leaves a marker.
    const copy = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    fs.writeFileSync(
      path.join(dir, "fake-build.cjs"),
      "const fs = require('fs');\nfs.mkdirSync('dist', { recursive: true });\n" +
        `for (const f of ${JSON.stringify(stamp.OUTPUTS)}) fs.writeFileSync(f, 'built from ' + fs.readFileSync('core/index-js.ts', 'utf8').length);\n` +
        "fs.writeFileSync('built.txt', '');\n",
    );
    copy.scripts = { "build:core": "node fake-build.cjs && node scripts/core-stamp.mjs write" };
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(copy));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("counts every file that build:core's commands name, through the npm scripts it runs", () => {
    const files: string[] = stamp.inputFiles(ROOT);
    for (const f of ["core/index-wasm.ts", "core/index-js.ts", "shell-node/src/cli.ts", "asconfig.json", "package.json", "rollup.config.mjs", "scripts/pack-wasm.mjs"])
      expect(files, f).toContain(f);
    expect(files.some((f) => f.startsWith("dist/"))).toBe(false);
    expect(stamp.commandFiles(dir)).toEqual(["fake-build.cjs", "scripts/core-stamp.mjs"]);
  });

  it("is what npm test's pretest runs, and the last step of build:core", () => {
    expect(pkg.scripts.pretest).toBe("node scripts/core-stamp.mjs ensure");
    expect(pkg.scripts["build:core"]).toMatch(/&& node scripts\/core-stamp\.mjs write$/);
  });

  it("builds when there is no record, and not again when nothing changed", () => {
    expect(ensure()).toBe(true);
    expect(stamp.staleReason(dir)).toBeNull();
    expect(ensure()).toBe(false);
  });

  it("builds again after an edit to a core file", () => {
    edit("core/index-js.ts", (s) => s + "\n// edited\n");
    expect(stamp.staleReason(dir)).toBe("its inputs changed");
    expect(ensure()).toBe(true);
    expect(stamp.staleReason(dir)).toBeNull();
  });

  // The same record in process (the build as the stand-in's record step would write it): every
  // input counts, new and removed files too, and so does every output.
  const rebuild = () => {
    for (const f of stamp.OUTPUTS) fs.writeFileSync(path.join(dir, f), "built " + Math.random());
    stamp.writeStamp(dir);
    expect(stamp.staleReason(dir)).toBeNull();
  };

  it("is out of date after an edit to a shell file or a build setting", () => {
    // fake-build.cjs: a file that the build's command names (here the stand-in's; in the
    // repository scripts/pack-wasm.mjs, rollup.config.mjs and the like)
    for (const rel of ["shell-node/src/cli.ts", "asconfig.json", "scripts/core-stamp.mjs", "fake-build.cjs"]) {
      rebuild();
      edit(rel, (s) => s + "\n// edited\n");
      expect(stamp.staleReason(dir), rel).toBe("its inputs changed");
    }
  });

  it("is out of date after a new or removed core file", () => {
    rebuild();
    fs.writeFileSync(path.join(dir, "core", "new-file.ts"), "export const x = 1;\n");
    expect(stamp.staleReason(dir)).toBe("its inputs changed");
    rebuild();
    fs.rmSync(path.join(dir, "core", "new-file.ts"));
    expect(stamp.staleReason(dir)).toBe("its inputs changed");
  });

  it("is out of date when an output is missing or was changed after the build", () => {
    rebuild();
    fs.rmSync(path.join(dir, "dist", "tile-core.wasm"));
    expect(stamp.staleReason(dir)).toBe("dist/tile-core.wasm is missing");
    rebuild();
    fs.appendFileSync(path.join(dir, "dist", "tile-shell.mjs"), "// by hand\n");
    expect(stamp.staleReason(dir)).toBe("dist/tile-shell.mjs changed");
    rebuild();
    fs.rmSync(path.join(dir, stamp.STAMP));
    expect(stamp.staleReason(dir)).toBe("no build record");
  });

  it("fails, and stays out of date, when the build fails", () => {
    edit("core/index-js.ts", (s) => s + "\n// edited again\n");
    const copy = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
    const good = copy.scripts["build:core"];
    copy.scripts["build:core"] = "node fake-build.cjs && node no-such-step.cjs && node scripts/core-stamp.mjs write";
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(copy));
    const r = spawnSync(process.execPath, ["scripts/core-stamp.mjs", "ensure"], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(1);
    expect(stamp.staleReason(dir)).not.toBeNull();
    copy.scripts["build:core"] = good;
    fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify(copy));
    expect(ensure()).toBe(true);
    expect(stamp.staleReason(dir)).toBeNull();
  });
});
