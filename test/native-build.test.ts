// shell-native/build.mjs links each runtime library under a temporary name and renames it into
// place only on success; a failed build removes the old library (no stale library stays in use)
// and exits 1 with a loud message. Checked with a stand-in compiler in a scratch output folder
// (TILE_NATIVE_DIR), so the repository's own build/native is never touched. The Metal library
// goes through the same linkInto step on macOS (TILE_SKIP_METAL keeps these runs host-only).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";

const BUILD = path.join(ROOT, "shell-native", "build.mjs");
const HOST_LIB = process.platform === "darwin" ? "libtile_host.dylib" : "libtile_host.so";
let tmp = "";

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-native-build-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

/** A stand-in C++ compiler: answers --version; otherwise writes `-o FILE` (ok) or fails. */
function fakeCompiler(name: string, ok: boolean): string {
  const file = path.join(tmp, name);
  fs.writeFileSync(file, [
    "#!/bin/sh",
    'if [ "$1" = "--version" ]; then echo "fake 1.0"; exit 0; fi',
    ok ? 'while [ $# -gt 0 ]; do if [ "$1" = "-o" ]; then printf "new library" > "$2"; fi; shift; done; exit 0'
      : 'echo "fake.cpp:1: error: deliberately broken" >&2; exit 1',
    "",
  ].join("\n"));
  fs.chmodSync(file, 0o755);
  return file;
}

function build(cxx: string, outDir: string) {
  return spawnSync(process.execPath, [BUILD], {
    encoding: "utf8", cwd: ROOT,
    env: { ...process.env, CXX: cxx, TILE_NATIVE_DIR: outDir, TILE_SKIP_METAL: "1" },
  });
}

describe("build.mjs: temporary name, rename on success, loud failure", () => {
  it("a failed build exits 1, says BUILD FAILED on stderr, and leaves no library (not even the old one)", () => {
    const outDir = path.join(tmp, "out-fail");
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, HOST_LIB), "stale library from an earlier build");
    const r = build(fakeCompiler("broken-cxx", false), outDir);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/Host runtime: BUILD FAILED/);
    expect(r.stderr).toMatch(/deliberately broken/);
    expect(fs.existsSync(path.join(outDir, HOST_LIB))).toBe(false);
    expect(fs.readdirSync(outDir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it("a successful build replaces the old library through a temporary file and exits 0", () => {
    const outDir = path.join(tmp, "out-ok");
    fs.mkdirSync(outDir, { recursive: true });
    fs.writeFileSync(path.join(outDir, HOST_LIB), "old library");
    const r = build(fakeCompiler("good-cxx", true), outDir);
    expect(r.status).toBe(0);
    // the compiler was asked for a temporary name, never for the final one
    expect(r.stdout).toMatch(new RegExp(`-o \\S*${HOST_LIB.replace(".", "\\.")}\\.tmp-\\d+ `));
    expect(fs.readFileSync(path.join(outDir, HOST_LIB), "utf8")).toBe("new library");
    expect(fs.readdirSync(outDir).filter((f) => f.includes(".tmp"))).toEqual([]);
    expect(r.stdout).toMatch(process.platform === "darwin" ? /Metal runtime: skipped \(TILE_SKIP_METAL=1\)/ : /Metal runtime: skipped, not macOS/);
  });
});
