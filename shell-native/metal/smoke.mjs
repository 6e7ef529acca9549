#!/usr/bin/env node
// Smoke test of a native runtime through koffi, with no build step beyond `npm run build:native`:
//   node shell-native/metal/smoke.mjs            # Metal (macOS)
//   node shell-native/metal/smoke.mjs host       # host CPU runtime (any OS)
// Compiles a tiny row-sum kernel (simd_sum + threadgroup memory + barrier), runs it three times
// in one command buffer, checks the result against JS and prints the times the runtime reports.
// Plain JS on purpose (Node 20 does not run TypeScript); shell-node/src/native.ts is the binding
// the product uses.
import koffi from "koffi";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const kind = process.argv[2] ?? "metal";
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const ext = process.platform === "darwin" ? "dylib" : "so";
const file = path.join(root, "build", "native", `libtile_${kind}.${ext}`);
if (!fs.existsSync(file)) {
  console.error(`${file} not found: run \`npm run build:native\` (the Metal runtime exists only on macOS)`);
  process.exit(2);
}

koffi.opaque("tile_device");
koffi.opaque("tile_library");
koffi.opaque("tile_pipeline");
koffi.opaque("tile_buffer");
const lib = koffi.load(file);
const api = {
  open: lib.func("int tile_open(_Out_ tile_device **out)"),
  close: lib.func("void tile_close(tile_device *dev)"),
  name: lib.func("const char *tile_device_name(tile_device *dev)"),
  error: lib.func("const char *tile_last_error(tile_device *dev)"),
  compile: lib.func("int tile_compile(tile_device *dev, const char *src, _Out_ tile_library **out)"),
  libraryFree: lib.func("void tile_library_free(tile_library *lib)"),
  pipeline: lib.func("int tile_pipeline(tile_library *lib, const char *entry, _Out_ tile_pipeline **out, _Out_ int *max)"),
  pipelineFree: lib.func("void tile_pipeline_free(tile_pipeline *p)"),
  bufferNew: lib.func("int tile_buffer_new(tile_device *dev, size_t bytes, _Out_ tile_buffer **out)"),
  write: lib.func("int tile_buffer_write(tile_buffer *b, size_t offset, const void *src, size_t len)"),
  read: lib.func("int tile_buffer_read(tile_buffer *b, size_t offset, _Out_ void *dst, size_t len)"),
  bufferFree: lib.func("void tile_buffer_free(tile_buffer *b)"),
  dispatch: lib.func("int tile_dispatch(tile_pipeline *p, tile_buffer **bufs, int nb, const int *tg, int ntg, int gx, int gy, int gz, int tx, int ty, int tz, int repeat)"),
  times: lib.func("int tile_last_times(tile_device *dev, _Out_ double *s, _Out_ double *e)"),
  gpu: lib.func("int tile_times_are_gpu(tile_device *dev)"),
};

const src = `#include <metal_stdlib>
using namespace metal;

// smoke: one row per group, 64 workers, two-stage simd_sum
kernel void smoke_row_sum(
    device const float* X [[buffer(0)]],
    device float* Y [[buffer(1)]],
    threadgroup float* tg0 [[threadgroup(0)]],
    uint tid [[thread_index_in_threadgroup]],
    uint group [[threadgroup_position_in_grid]],
    uint lane [[thread_index_in_simdgroup]],
    uint sg [[simdgroup_index_in_threadgroup]])
{
  float acc = 0.0f;
  for (int c = int(tid); c < 100; c += 64) { acc += X[int(group) * 100 + c]; }
  float part = simd_sum(acc);
  if (lane == 0u) { tg0[sg] = part; }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  float total = simd_sum(lane < 2u ? tg0[lane] : 0.0f);
  if (tid == 0u) { Y[group] = total; }
}
`;

const dev = [null];
let rc = api.open(dev);
if (rc !== 0) {
  // tile_last_error(NULL): why the open failed (on Metal: which device calls were tried)
  console.error(`tile_open failed (status ${rc}): ${api.error(null) || `no ${kind} device`}`);
  process.exit(1);
}
const d = dev[0];
function check(status, what) {
  if (status !== 0) {
    console.error(`${what} failed (status ${status}):\n${api.error(d)}`);
    process.exit(1);
  }
}
console.log(`device: ${api.name(d)}`);
const L = [null];
check(api.compile(d, src, L), "compile");
const P = [null];
const max = [0];
check(api.pipeline(L[0], "smoke_row_sum", P, max), "pipeline");
console.log(`pipeline: smoke_row_sum, max threads per group ${max[0]}`);

const rows = 8;
const x = Float32Array.from({ length: rows * 100 }, (_, i) => ((i * 37) % 101) / 10 - 5);
const X = [null];
const Y = [null];
check(api.bufferNew(d, x.byteLength, X), "buffer X");
check(api.bufferNew(d, rows * 4, Y), "buffer Y");
check(api.write(X[0], 0, x, x.byteLength), "write");
check(api.dispatch(P[0], [X[0], Y[0]], 2, Int32Array.of(64), 1, rows, 1, 1, 64, 1, 1, 3), "dispatch");
const out = new Float32Array(rows);
check(api.read(Y[0], 0, out, out.byteLength), "read");
let worst = 0;
for (let r = 0; r < rows; r++) {
  let ref = 0;
  for (let c = 0; c < 100; c++) ref += x[r * 100 + c];
  worst = Math.max(worst, Math.abs(out[r] - ref) / (2e-6 + 2e-5 * Math.abs(ref)));
}
console.log(`result: ${Array.from(out, (v) => v.toFixed(4)).join(" ")}`);
const s = [0];
const e = [0];
check(api.times(d, s, e), "times");
const gpu = api.gpu(d) === 1;
console.log(`${gpu ? "GPU" : "host (not GPU)"} times: start ${s[0].toFixed(6)} s, end ${e[0].toFixed(6)} s, ` +
  `elapsed ${((e[0] - s[0]) * 1e6).toFixed(1)} us for 3 dispatches`);
api.bufferFree(X[0]);
api.bufferFree(Y[0]);
api.pipelineFree(P[0]);
api.libraryFree(L[0]);
api.close(d);
if (worst > 1) {
  console.error(`FAIL: result differs from the JS reference (worst error ${worst.toFixed(2)}x tolerance)`);
  process.exit(1);
}
console.log("OK");
