// When the Metal runtime's tile_open fails, the shell says why, in the library's own words
// (tile_last_error(NULL)): `--runtime metal` is a usage error carrying that text, and
// `--runtime auto` says on stderr that it falls back to the host runtime, and why. No Mac here,
// so a stand-in libtile_metal built from C (every ABI symbol; tile_open fails the way
// tile_metal.m does when no device comes back) sits beside the real host library in a scratch
// folder that TILE_NATIVE_DIR points at.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";
import { nativeLibraryPath } from "../shell-node/src/native";

const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const EXT = process.platform === "darwin" ? "dylib" : "so";
const REASON = "no Metal device: MTLCreateSystemDefaultDevice() returned nil; MTLCopyAllDevices() returned 0 device(s)";
const STUB = `
#include <stddef.h>
static const char *why = "${REASON}";
int tile_open(void **out) { if (out) *out = NULL; return 2; }
void tile_close(void *d) { (void)d; }
const char *tile_device_name(void *d) { (void)d; return ""; }
const char *tile_runtime_kind(void *d) { (void)d; return "metal"; }
const char *tile_last_error(void *d) { return d ? "" : why; }
int tile_compile(void *d, const char *s, void **o) { (void)d; (void)s; (void)o; return 1; }
void tile_library_free(void *l) { (void)l; }
int tile_compiler_invocations(void *d) { (void)d; return 0; }
int tile_pipeline(void *l, const char *e, void **o, int *m) { (void)l; (void)e; (void)o; (void)m; return 1; }
void tile_pipeline_free(void *p) { (void)p; }
int tile_buffer_new(void *d, size_t n, void **o) { (void)d; (void)n; (void)o; return 1; }
int tile_buffer_write(void *b, size_t o, const void *s, size_t n) { (void)b; (void)o; (void)s; (void)n; return 1; }
int tile_buffer_read(void *b, size_t o, void *s, size_t n) { (void)b; (void)o; (void)s; (void)n; return 1; }
size_t tile_buffer_size(void *b) { (void)b; return 0; }
int tile_buffer_bind_offset(void *b, size_t o) { (void)b; (void)o; return 1; }
void tile_buffer_free(void *b) { (void)b; }
int tile_dispatch(void *p, void **b, int nb, const int *t, int nt, int gx, int gy, int gz, int tx, int ty, int tz, int r) {
  (void)p; (void)b; (void)nb; (void)t; (void)nt; (void)gx; (void)gy; (void)gz; (void)tx; (void)ty; (void)tz; (void)r; return 1; }
int tile_last_times(void *d, double *s, double *e) { (void)d; (void)s; (void)e; return 1; }
int tile_times_are_gpu(void *d) { (void)d; return 1; }
`;

let dir = "";
let compiled = false;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-metal-open-"));
  const src = path.join(dir, "stub.c");
  fs.writeFileSync(src, STUB);
  const cc = process.platform === "darwin" ? "clang" : "gcc";
  const r = spawnSync(cc, ["-shared", "-fPIC", "-o", path.join(dir, path.basename(nativeLibraryPath("metal"))), src], { encoding: "utf8" });
  compiled = r.status === 0;
  if (!compiled) throw new Error(`cannot build the stand-in Metal library: ${r.stderr}`);
  fs.copyFileSync(nativeLibraryPath("host"), path.join(dir, `libtile_host.${EXT}`));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function tile(args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT, env: { ...process.env, TILE_NATIVE_DIR: dir } });
}

describe("a Metal runtime that does not open", () => {
  it("--runtime metal: exit 2 with the library's reason (what it tried), no stack trace", () => {
    const r = tile(["run", "cases/sum.json", "--runtime", "metal"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`tile: cannot open the metal runtime (status 2): ${REASON}`);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("--runtime auto: falls back to the host runtime, saying so and why on stderr", () => {
    const r = tile(["run", "cases/sum.json", "--size", "R=3", "--json"]);
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).runtime).toBe("host");
    expect(r.stderr).toContain("tile: the Metal runtime did not open; using the host runtime (no GPU timing).");
    expect(r.stderr).toContain(REASON);
  });
});
