// The host runtime's arm64 fiber switch (shell-native/host/scheduler.cpp), which macOS on Apple
// silicon uses: the runtime is cross-compiled for aarch64 Linux (same AAPCS64 register rules)
// and run under qemu-user with test/native/fiber_driver.cpp, a barrier- and simd-heavy kernel
// plus a divergent barrier. The same driver also runs with TILE_FORCE_UCONTEXT, the fallback, so
// the two mechanisms are compared on the same work. Opt-in, because it takes minutes on a small
// machine: `apt-get install g++-aarch64-linux-gnu qemu-user`, then
// `TILE_TEST_ARM64=1 npx vitest run test/fiber-arm64.test.ts`. Skipped, with a message, otherwise.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";

const have = (cmd: string): boolean => spawnSync(cmd, ["--version"], { stdio: "ignore" }).status === 0;
const WANTED = process.env.TILE_TEST_ARM64 === "1";
const TOOLS = WANTED && have("aarch64-linux-gnu-g++") && have("qemu-aarch64") && fs.existsSync("/usr/aarch64-linux-gnu");
if (!WANTED) console.warn("fiber-arm64: skipped (set TILE_TEST_ARM64=1, with g++-aarch64-linux-gnu and qemu-user installed, to run the arm64 fiber switch under qemu)");
else if (!TOOLS) console.warn("fiber-arm64: aarch64-linux-gnu-g++ or qemu-aarch64 not installed; the arm64 fiber switch is not exercised here");

function buildAndRun(extra: string[]): { build: string; out: string; status: number | null; fastSwitch: boolean } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-arm64-"));
  try {
    const exe = path.join(dir, "driver");
    const sources = [
      ...fs.readdirSync(path.join(ROOT, "shell-native", "common")).filter((f) => f.endsWith(".cpp")).map((f) => path.join(ROOT, "shell-native", "common", f)),
      ...fs.readdirSync(path.join(ROOT, "shell-native", "host")).filter((f) => f.endsWith(".cpp")).map((f) => path.join(ROOT, "shell-native", "host", f)),
    ];
    const b = spawnSync("aarch64-linux-gnu-g++", ["-std=c++17", "-O2", ...extra, "-I", path.join(ROOT, "shell-native"), "-I", path.join(ROOT, "build", "native", "gen"),
      path.join(ROOT, "test", "native", "fiber_driver.cpp"), ...sources, "-ldl", "-o", exe], { encoding: "utf8" });
    if (b.status !== 0) return { build: b.stderr, out: "", status: b.status, fastSwitch: false };
    const nm = spawnSync("aarch64-linux-gnu-nm", [exe], { encoding: "utf8" });
    const fastSwitch = /\btile_fiber_swap\b/.test(nm.stdout);
    const r = spawnSync("qemu-aarch64", ["-L", "/usr/aarch64-linux-gnu", exe], {
      encoding: "utf8", timeout: 240_000,
      env: { ...process.env, TILE_CXX: "aarch64-linux-gnu-g++", TILE_CACHE_DIR: path.join(dir, "cache") },
    });
    return { build: "", out: r.stdout + r.stderr, status: r.status, fastSwitch };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe.skipIf(!TOOLS)("the arm64 fiber switch (aarch64 under qemu-user)", () => {
  it("runs barriers, collectives and a divergence check with the assembly switch, as the ucontext fallback does", () => {
    const fast = buildAndRun([]);
    expect(fast.build).toBe("");
    expect(fast.fastSwitch).toBe(true);
    expect(fast.out).toMatch(/divergent: rc 7: kernel 'k2', group \(0,0,0\): threadgroup_barrier not reached by every thread/);
    expect(fast.out.trim().split("\n").pop()).toBe("OK");
    expect(fast.status).toBe(0);
    const slow = buildAndRun(["-DTILE_FORCE_UCONTEXT"]);
    expect(slow.fastSwitch).toBe(false);
    expect(slow.status).toBe(0);
    expect(slow.out).toBe(fast.out);
  }, 600_000);
});
