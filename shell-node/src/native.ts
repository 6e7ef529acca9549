// native.ts: the koffi binding of shell-native/tile_native.h (host CPU, Metal or CUDA runtime).
//
// openRuntime("host" | "metal" | "cuda" | "auto") loads build/native/libtile_<kind>.{so,dylib} from the
// repository root (found by walking up from this file to the package.json named "tile"), so it
// works from shell-node/src/native.ts (vitest) and from dist/tile-shell.mjs (bundled).
// Every nonzero native status becomes a JS Error carrying tile_last_error's message.
import koffi from "koffi";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export type RuntimeKind = "metal" | "cuda" | "host";
/** What `--runtime` accepts. */
export const RUNTIME_CHOICES = ["metal", "cuda", "host", "auto"] as const;

/** Opaque native handles (koffi externals). */
export interface Library { readonly handle: unknown; }
export interface Pipeline { readonly handle: unknown; readonly maxThreads: number; readonly entry: string; }
export interface DeviceBuffer { readonly handle: unknown; readonly bytes: number; }

export interface Times { start: number; end: number; gpu: boolean; }

export interface Runtime {
  readonly kind: RuntimeKind;
  readonly deviceName: string;
  readonly libraryPath: string;
  /** Whether lastTimes() are GPU times (Metal command buffer times, CUDA events). */
  readonly timesAreGpu: boolean;
  /** Compiles MSL. `registerLimit` > 0: the most registers one thread may use, where the
   *  runtime's compiler takes such a limit (CUDA; registerLimitFor gives a plan's). Host and
   *  Metal compile as without it. */
  compile(src: string, registerLimit?: number): Library;
  /** Host: compiles the sources that compile() would compile (not cached) in one compiler run,
   *  each then served from the cache by compile(); faster where many kernels are compiled (tests).
   *  Best effort: a source it leaves out is compiled by compile() as before. Returns how many it
   *  compiled. Absent on the other runtimes. */
  prefetch?(srcs: string[]): number;
  pipeline(lib: Library, entry: string): Pipeline;
  buffer(bytes: number): DeviceBuffer;
  /** Later dispatches bind the buffer from this byte offset (guard regions before the view). */
  bindOffset(buf: DeviceBuffer, offsetBytes: number): void;
  write(buf: DeviceBuffer, data: Float32Array | Int32Array | Uint32Array | Uint8Array, offsetBytes?: number): void;
  read(buf: DeviceBuffer, bytes?: number, offsetBytes?: number): ArrayBuffer;
  dispatch(pipe: Pipeline, buffers: DeviceBuffer[], threadgroupBytes: number[], groups: [number, number, number],
    threads: [number, number, number], repeat?: number): void;
  lastTimes(): Times;
  /** How many times the runtime invoked its compiler (host: g++ runs; cache hits do not count). */
  compilerInvocations(): number;
  /** Host: turn the race and bounds detector on or off for libraries compiled afterwards (on by
   *  default). A dispatch of a checked library with a data race or an out-of-bounds access
   *  throws, naming the buffer, the element, the threads and the MSL line. Metal: no effect. */
  setDetector(on: boolean): void;
  /** Whether later compiles are checked (always false on Metal). */
  detectorEnabled(): boolean;
  freeLibrary(lib: Library): void;
  freePipeline(pipe: Pipeline): void;
  freeBuffer(buf: DeviceBuffer): void;
  close(): void;
}

/** The repository root: the nearest ancestor folder whose package.json is named "tile". */
export function repoRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    const pkg = path.join(dir, "package.json");
    if (fs.existsSync(pkg)) {
      try {
        if (JSON.parse(fs.readFileSync(pkg, "utf8")).name === "tile") return dir;
      } catch {
        // not ours; keep walking
      }
    }
    const up = path.dirname(dir);
    if (up === dir) throw new Error(`tile: cannot find the repository root above ${from}`);
    dir = up;
  }
}

/** build/native/libtile_<kind>.<ext> under the repository root, or under $TILE_NATIVE_DIR when set
 *  (the folder shell-native/build.mjs writes to when given the same variable). */
export function nativeLibraryPath(kind: RuntimeKind): string {
  // the Metal library exists only on macOS, so it is always a .dylib (a message on another OS
  // must name the file that would have to exist, not a .so that never will)
  const ext = kind === "metal" || process.platform === "darwin" ? "dylib" : process.platform === "win32" ? "dll" : "so";
  const dir = process.env.TILE_NATIVE_DIR ? path.resolve(process.env.TILE_NATIVE_DIR) : path.join(repoRoot(), "build", "native");
  return path.join(dir, `libtile_${kind}.${ext}`);
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type NativeFn = (...args: any[]) => any;

interface Api {
  open: NativeFn; close: NativeFn; name: NativeFn;
  kind: NativeFn; lastError: NativeFn; compile: NativeFn;
  libraryFree: NativeFn; invocations: NativeFn; pipeline: NativeFn;
  pipelineFree: NativeFn; bufferNew: NativeFn; bufferWrite: NativeFn;
  bufferRead: NativeFn; bufferFree: NativeFn; dispatch: NativeFn; bindOffset: NativeFn;
  lastTimes: NativeFn; timesAreGpu: NativeFn;
  setDetector: NativeFn | null; detectorEnabled: NativeFn | null;
  compileLimited: NativeFn | null;
  prefetch: NativeFn | null;
}

/** The register limit a plan's kernel is compiled with on a runtime of this kind: the plan's cost
 *  term registerLimit (the most registers per thread that keep the groups per core it was scored
 *  with) where the runtime's compiler takes a limit (CUDA), else 0. TILE_REGISTER_LIMIT=0 in the
 *  environment gives 0 everywhere (to measure what the limit changes). */
export function registerLimitFor(kind: RuntimeKind, plan: any): number {
  if (kind !== "cuda" || process.env.TILE_REGISTER_LIMIT === "0") return 0;
  const v = plan?.cost?.terms?.registerLimit;
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : 0;
}

const apis = new Map<string, Api>();
let typesDeclared = false;

function declareTypes(): void {
  if (typesDeclared) return;
  for (const name of ["tile_device", "tile_library", "tile_pipeline", "tile_buffer"]) {
    try {
      koffi.opaque(name);
    } catch {
      // already declared by an earlier evaluation of this module in the same process
    }
  }
  typesDeclared = true;
}

/** A symbol a library built before it existed may lack (the detector's calls). */
function optional(make: () => NativeFn): NativeFn | null {
  try {
    return make();
  } catch {
    return null;
  }
}

function loadApi(file: string): Api {
  const cached = apis.get(file);
  if (cached) return cached;
  declareTypes();
  const lib = koffi.load(file);
  const api: Api = {
    open: lib.func("int tile_open(_Out_ tile_device **out)"),
    close: lib.func("void tile_close(tile_device *dev)"),
    name: lib.func("const char *tile_device_name(tile_device *dev)"),
    kind: lib.func("const char *tile_runtime_kind(tile_device *dev)"),
    lastError: lib.func("const char *tile_last_error(tile_device *dev)"),
    compile: lib.func("int tile_compile(tile_device *dev, const char *src, _Out_ tile_library **out)"),
    libraryFree: lib.func("void tile_library_free(tile_library *lib)"),
    invocations: lib.func("int tile_compiler_invocations(tile_device *dev)"),
    pipeline: lib.func("int tile_pipeline(tile_library *lib, const char *entry, _Out_ tile_pipeline **out, _Out_ int *maxThreads)"),
    pipelineFree: lib.func("void tile_pipeline_free(tile_pipeline *pipe)"),
    bufferNew: lib.func("int tile_buffer_new(tile_device *dev, size_t bytes, _Out_ tile_buffer **out)"),
    bufferWrite: lib.func("int tile_buffer_write(tile_buffer *buf, size_t offset, const void *src, size_t len)"),
    bufferRead: lib.func("int tile_buffer_read(tile_buffer *buf, size_t offset, _Out_ void *dst, size_t len)"),
    bufferFree: lib.func("void tile_buffer_free(tile_buffer *buf)"),
    bindOffset: lib.func("int tile_buffer_bind_offset(tile_buffer *buf, size_t offset)"),
    dispatch: lib.func("int tile_dispatch(tile_pipeline *pipe, tile_buffer **buffers, int nBuffers, const int *tgBytes, int nTg, int gx, int gy, int gz, int tx, int ty, int tz, int repeat)"),
    lastTimes: lib.func("int tile_last_times(tile_device *dev, _Out_ double *start, _Out_ double *end)"),
    timesAreGpu: lib.func("int tile_times_are_gpu(tile_device *dev)"),
    setDetector: optional(() => lib.func("int tile_set_detector(tile_device *dev, int on)")),
    detectorEnabled: optional(() => lib.func("int tile_detector_enabled(tile_device *dev)")),
    compileLimited: optional(() => lib.func("int tile_compile_limited(tile_device *dev, const char *src, int maxRegisters, _Out_ tile_library **out)")),
    prefetch: optional(() => lib.func("int tile_prefetch(tile_device *dev, const char **srcs, int n)")),
  };
  apis.set(file, api);
  return api;
}

class NativeRuntime implements Runtime {
  readonly kind: RuntimeKind;
  readonly deviceName: string;
  readonly libraryPath: string;
  readonly timesAreGpu: boolean;
  private dev: unknown;
  private api: Api;

  constructor(kind: RuntimeKind, file: string) {
    this.api = loadApi(file);
    this.libraryPath = file;
    const out: unknown[] = [null];
    const rc = this.api.open(out) as number;
    if (rc !== 0 || out[0] === null) {
      // tile_last_error(NULL) says why the last tile_open failed (on Metal: what was tried)
      const why = this.api.lastError(null) as string;
      throw new Error(`tile: cannot open the ${kind} runtime (status ${rc}): ${why || "no reason given"}`);
    }
    this.dev = out[0];
    this.kind = this.api.kind(this.dev) as RuntimeKind;
    this.deviceName = this.api.name(this.dev) as string;
    this.timesAreGpu = (this.api.timesAreGpu(this.dev) as number) === 1;
  }

  private live(): unknown {
    if (this.dev === null) throw new Error("tile: runtime is closed");
    return this.dev;
  }

  private check(rc: number, what: string): void {
    if (rc === 0) return;
    const msg = this.api.lastError(this.dev) as string;
    throw new Error(`tile ${this.kind}: ${what} failed (status ${rc}): ${msg}`);
  }

  compile(src: string, registerLimit: number = 0): Library {
    const out: unknown[] = [null];
    const limit = registerLimit > 0 && Number.isInteger(registerLimit) ? registerLimit : 0;
    if (limit > 0 && this.api.compileLimited) {
      this.check(this.api.compileLimited(this.live(), src, limit, out) as number, `compile (register limit ${limit})`);
      return { handle: out[0] };
    }
    this.check(this.api.compile(this.live(), src, out) as number, "compile");
    return { handle: out[0] };
  }

  prefetch(srcs: string[]): number {
    const dev = this.live();
    if (!this.api.prefetch || srcs.length === 0) return 0;
    return this.api.prefetch(dev, srcs, srcs.length) as number;
  }

  pipeline(lib: Library, entry: string): Pipeline {
    this.live();
    const out: unknown[] = [null];
    const max = [0];
    this.check(this.api.pipeline(lib.handle, entry, out, max) as number, `pipeline '${entry}'`);
    return { handle: out[0], maxThreads: max[0], entry };
  }

  buffer(bytes: number): DeviceBuffer {
    const out: unknown[] = [null];
    this.check(this.api.bufferNew(this.live(), bytes, out) as number, `buffer(${bytes})`);
    return { handle: out[0], bytes };
  }

  write(buf: DeviceBuffer, data: Float32Array | Int32Array | Uint32Array | Uint8Array, offsetBytes = 0): void {
    this.live();
    this.check(this.api.bufferWrite(buf.handle, offsetBytes, data, data.byteLength) as number, "write");
  }

  read(buf: DeviceBuffer, bytes: number = buf.bytes, offsetBytes = 0): ArrayBuffer {
    this.live();
    const dst = new Uint8Array(bytes);
    this.check(this.api.bufferRead(buf.handle, offsetBytes, dst, bytes) as number, "read");
    return dst.buffer;
  }

  dispatch(pipe: Pipeline, buffers: DeviceBuffer[], threadgroupBytes: number[], groups: [number, number, number],
    threads: [number, number, number], repeat = 1): void {
    this.live();
    const handles = buffers.map((b) => b.handle);
    const tg = Int32Array.from(threadgroupBytes);
    const rc = this.api.dispatch(pipe.handle, handles.length ? handles : null, handles.length,
      tg.length ? tg : null, tg.length, groups[0], groups[1], groups[2], threads[0], threads[1], threads[2],
      repeat) as number;
    this.check(rc, `dispatch '${pipe.entry}'`);
  }

  lastTimes(): Times {
    const s = [0];
    const e = [0];
    this.check(this.api.lastTimes(this.live(), s, e) as number, "lastTimes");
    return { start: s[0], end: e[0], gpu: (this.api.timesAreGpu(this.dev) as number) === 1 };
  }

  compilerInvocations(): number {
    return this.api.invocations(this.live()) as number;
  }

  setDetector(on: boolean): void {
    if (!this.api.setDetector) {
      if (on && this.kind === "host") throw new Error(`tile host: ${this.libraryPath} has no detector; run \`npm run build:native\``);
      return;
    }
    this.check(this.api.setDetector(this.live(), on ? 1 : 0) as number, "set detector");
  }

  detectorEnabled(): boolean {
    return this.api.detectorEnabled ? (this.api.detectorEnabled(this.live()) as number) === 1 : false;
  }

  freeLibrary(lib: Library): void { this.api.libraryFree(lib.handle); }
  freePipeline(pipe: Pipeline): void { this.api.pipelineFree(pipe.handle); }
  freeBuffer(buf: DeviceBuffer): void { this.api.bufferFree(buf.handle); }

  bindOffset(buf: DeviceBuffer, offsetBytes: number): void {
    this.check(this.api.bindOffset(buf.handle, offsetBytes) as number, "bind offset");
  }

  close(): void {
    if (this.dev === null) return;
    this.api.close(this.dev);
    this.dev = null;
  }
}

/**
 * Opens a runtime. "auto" picks Metal, then CUDA, then host: the first whose library exists and
 * whose device opens (a CUDA library built on a machine without an NVIDIA driver falls through).
 * The fallback is never silent where Metal was expected: a Metal library that does not open, or a
 * missing one on macOS, is reported on stderr with the reason.
 * Handles stay valid after close() until freed (the native side reference-counts the device).
 */
export function openRuntime(kind: RuntimeKind | "auto" = "auto"): Runtime {
  if (kind === "auto") {
    for (const gpu of ["metal", "cuda"] as const) {
      const file = nativeLibraryPath(gpu);
      if (!fs.existsSync(file)) continue;
      try {
        return new NativeRuntime(gpu, file);
      } catch (err) {
        // no usable device of this kind: try the next (a Metal failure is said on stderr)
        if (gpu === "metal") process.stderr.write(`tile: the Metal runtime did not open; ${fs.existsSync(nativeLibraryPath("cuda")) ? "trying the CUDA runtime, then the host runtime" : "using the host runtime (no GPU timing)"}. ${err instanceof Error ? err.message : String(err)}\n`);
      }
    }
    if (process.platform === "darwin" && !fs.existsSync(nativeLibraryPath("metal"))) {
      process.stderr.write(`tile: no Metal runtime library at ${nativeLibraryPath("metal")} (run \`npm run build:native\`); using the host runtime (no GPU timing)\n`);
    }
    return openRuntime("host");
  }
  const file = nativeLibraryPath(kind);
  if (!fs.existsSync(file)) {
    const hint = kind === "metal" && process.platform !== "darwin"
      ? "the Metal runtime exists only on macOS"
      : kind === "cuda"
        ? "the CUDA runtime is built by `npm run build:native` where a CUDA toolkit is present (nvcc or cuda.h)"
        : "run `npm run build:native`";
    throw new Error(`tile: ${kind} runtime library not found at ${file} (${hint})`);
  }
  return new NativeRuntime(kind, file);
}
