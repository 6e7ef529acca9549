// The device as data. The legality rules, the solver and the cost model read only this record.

import { J_ARR, J_NUM, J_OBJ, J_STR, JsonValue } from "../util/json";
import { Diagnostic, diag } from "../diag/diagnostic";
import { formatF32, formatF64Fixed, isI32Text, parseDecimalToF32, parseI32 } from "../util/num";
import { Text } from "../util/text";

export class Device {
  name: string = "Apple M1 Max";
  /** Where the figures come from (documentation only; never read by a decision). */
  source: string = "built-in default: Apple M1 Max (Apple newsroom, October 2021: 32-core GPU, 400 GB/s); occupancy figures are model estimates";
  /** Lanes per SIMD group. */
  simdWidth: i32 = 32;
  /** Maximum threads per threadgroup. */
  maxThreadsPerGroup: i32 = 1024;
  /** Threadgroup memory per group, in bytes. */
  threadgroupMemoryBytes: i32 = 32768;
  /** Vector widths a worker may load at once. */
  vectorWidths: Array<i32> = [1, 4, 8];
  /** Private (register) budget for a cached stripe, in scalars per worker. */
  privateBudget: i32 = 64;
  /** GPU cores (M1 Max: 32). */
  gpuCores: i32 = 32;
  /** Resident threads per core (Apple GPUs: 1024 per core for full occupancy at this budget). */
  maxThreadsPerCore: i32 = 1024;
  /** Threadgroup memory per core, bytes (bounds how many groups a core holds). */
  threadgroupMemoryPerCore: i32 = 65536;
  /** Maximum resident groups per core. */
  maxGroupsPerCore: i32 = 24;
  /** Memory bandwidth in bytes per nanosecond (GB/s); M1 Max: 400. */
  bandwidthBytesPerNs: i32 = 400;
  /** Core clock in MHz (M1 Max GPU: 1296). */
  clockMhz: i32 = 1296;
  /** Scalar FP32 lanes per core (M1 Max: 128 ALUs per core). */
  lanesPerCore: i32 = 128;
  /** Buffer arguments a kernel may take (Metal: [[buffer(0)]] to [[buffer(30)]], 31 per stage). */
  maxBufferArguments: i32 = 31;
  /** Threadgroup-memory arguments a kernel may take (Metal: [[threadgroup(0..30)]], 31). */
  maxThreadgroupArguments: i32 = 31;
  /** Registers of one core, shared by its resident threads (0: unknown, and residency is then not
   *  bounded by registers). */
  registersPerCore: i32 = 0;
  /** Registers a thread uses besides its cached stripe (an estimate from compiled kernels). */
  registersPerThreadBase: i32 = 0;
  /** Registers a thread holds for each buffer beyond the first that one stage of a cached stripe
   *  loads from memory (weight vectors held beside the stage's values; an estimate from compiled
   *  kernels; 0: none counted). */
  registersPerExtraLoad: i32 = 0;
  /** Registers are given to a thread in multiples of this (0 or 1: exactly). */
  registerGranule: i32 = 0;
  /** The cost model's coefficients (core/cost/model.ts documents each; "costModel" in JSON, read
   *  with f32 precision). Defaults: the estimates of COST_DEFAULTS. `tile calibrate` fits them. */
  cost: CostCoefficients = new CostCoefficients();
}

/** The cost model's coefficients for one device. The defaults are estimates for Apple GPUs. */
export class CostCoefficients {
  setupNs: f64 = 1500.0;
  barrierNs: f64 = 40.0;
  simdNs: f64 = 8.0;
  loadIssueCycles: f64 = 4.0;
  loopOverheadCycles: f64 = 3.0;
  couplingFraction: f64 = 0.15;
  underfillWeight: f64 = 1.0;
  uncoalescedFactor: f64 = 8.0;
  threadSetupCycles: f64 = 8.0;
  /** Share of the memory term added per packed vector beyond the first that one thread of the
   *  element grid takes in sequence (0 by default: not measured on Apple GPUs). */
  vectorChainFraction: f64 = 0.0;
  /** Multiplier of the memory term (bytes / bandwidth): 1 / the share of the bandwidth the
   *  kernels reach. 1 by default. */
  memoryFactor: f64 = 1.0;
  /** Programs on lanes: share of a byte's memory time added per 128-byte line segment a SIMD
   *  access leaves unread (a SIMD group of P < 32 programs reads 32 / P rows of P elements each). */
  partialLineFraction: f64 = 0.1;
  /** Programs on lanes: nanoseconds a worker waits per iteration of a distributed loop that loads
   *  from memory and stores, where a load cannot move above the store before it (0 by default:
   *  not measured on Apple GPUs). An iteration that computes its U chunks' values first
   *  (core/analysis/hoist.ts) waits once for the U. */
  storeChainNs: f64 = 0.0;
  /** The calibrated model's relative error between candidates of one shape (0: not calibrated).
   *  When the cheapest candidate's predicted advantage over one with fewer programs per group is
   *  within it, the solver prefers the fewer programs and says so in a plan note. */
  error: f64 = 0.0;
  /** Where the values come from (documentation only). */
  source: string = "built-in estimates (core/cost/model.ts), not fitted to measurements";
}

/** The coefficient names of "costModel", in order. */
export const COST_FIELDS: Array<string> = [
  "setupNs", "barrierNs", "simdNs", "loadIssueCycles", "loopOverheadCycles", "couplingFraction",
  "underfillWeight", "uncoalescedFactor", "threadSetupCycles", "memoryFactor", "error", "vectorChainFraction",
  "partialLineFraction", "storeChainNs",
];

function getCost(c: CostCoefficients, key: string): f64 {
  if (key == "setupNs") return c.setupNs;
  if (key == "barrierNs") return c.barrierNs;
  if (key == "simdNs") return c.simdNs;
  if (key == "loadIssueCycles") return c.loadIssueCycles;
  if (key == "loopOverheadCycles") return c.loopOverheadCycles;
  if (key == "couplingFraction") return c.couplingFraction;
  if (key == "underfillWeight") return c.underfillWeight;
  if (key == "uncoalescedFactor") return c.uncoalescedFactor;
  if (key == "threadSetupCycles") return c.threadSetupCycles;
  if (key == "memoryFactor") return c.memoryFactor;
  if (key == "vectorChainFraction") return c.vectorChainFraction;
  if (key == "partialLineFraction") return c.partialLineFraction;
  if (key == "storeChainNs") return c.storeChainNs;
  return c.error;
}

function setCost(c: CostCoefficients, key: string, v: f64): void {
  if (key == "setupNs") c.setupNs = v;
  else if (key == "barrierNs") c.barrierNs = v;
  else if (key == "simdNs") c.simdNs = v;
  else if (key == "loadIssueCycles") c.loadIssueCycles = v;
  else if (key == "loopOverheadCycles") c.loopOverheadCycles = v;
  else if (key == "couplingFraction") c.couplingFraction = v;
  else if (key == "underfillWeight") c.underfillWeight = v;
  else if (key == "uncoalescedFactor") c.uncoalescedFactor = v;
  else if (key == "threadSetupCycles") c.threadSetupCycles = v;
  else if (key == "memoryFactor") c.memoryFactor = v;
  else if (key == "vectorChainFraction") c.vectorChainFraction = v;
  else if (key == "partialLineFraction") c.partialLineFraction = v;
  else if (key == "storeChainNs") c.storeChainNs = v;
  else c.error = v;
}

/** Reads "costModel": {"setupNs": 1200, ..., "error": 0.08, "source": "..."}. */
function readCost(d: Device, x: JsonValue, diags: Array<Diagnostic>): void {
  const p = "/options/device/costModel";
  if (x.kind != J_OBJ) {
    diags.push(diag("TPL005", p, "costModel must be an object of cost-model coefficients (" + COST_FIELDS.join(", ") + ")."));
    return;
  }
  for (let i: i32 = 0; i < x.keys.length; i++) {
    const k = x.keys[i];
    const v = x.items[i];
    if (k == "source") {
      if (v.kind != J_STR) diags.push(diag("TPL005", p + "/source", "costModel.source must be a string."));
      else d.cost.source = v.text;
      continue;
    }
    if (COST_FIELDS.indexOf(k) < 0) {
      diags.push(diag("TPL005", p + "/" + k, "Unknown cost-model coefficient \"" + k + "\"; the coefficients are " + COST_FIELDS.join(", ") + "."));
      continue;
    }
    const value: f64 = v.kind == J_NUM ? parseDecimalToF32(v.text) : NaN;
    if (isNaN(value) || !isFinite(value) || value < 0.0 || (k == "memoryFactor" && value == 0.0)) {
      diags.push(diag("TPL005", p + "/" + k, "The cost-model coefficient " + k + " must be a finite number >= 0" + (k == "memoryFactor" ? " (and > 0)" : "") + "."));
      continue;
    }
    setCost(d.cost, k, value);
  }
}

const INT_FIELDS: Array<string> = [
  "simdWidth", "maxThreadsPerGroup", "threadgroupMemoryBytes", "privateBudget", "gpuCores",
  "maxThreadsPerCore", "threadgroupMemoryPerCore", "maxGroupsPerCore", "bandwidthBytesPerNs", "clockMhz", "lanesPerCore",
  "maxBufferArguments", "maxThreadgroupArguments",
  "registersPerCore", "registersPerThreadBase", "registerGranule", "registersPerExtraLoad",
];

function setInt(d: Device, key: string, v: i32): void {
  if (key == "simdWidth") d.simdWidth = v;
  else if (key == "maxThreadsPerGroup") d.maxThreadsPerGroup = v;
  else if (key == "threadgroupMemoryBytes") d.threadgroupMemoryBytes = v;
  else if (key == "privateBudget") d.privateBudget = v;
  else if (key == "gpuCores") d.gpuCores = v;
  else if (key == "maxThreadsPerCore") d.maxThreadsPerCore = v;
  else if (key == "threadgroupMemoryPerCore") d.threadgroupMemoryPerCore = v;
  else if (key == "maxGroupsPerCore") d.maxGroupsPerCore = v;
  else if (key == "bandwidthBytesPerNs") d.bandwidthBytesPerNs = v;
  else if (key == "clockMhz") d.clockMhz = v;
  else if (key == "lanesPerCore") d.lanesPerCore = v;
  else if (key == "maxBufferArguments") d.maxBufferArguments = v;
  else if (key == "registersPerCore") d.registersPerCore = v;
  else if (key == "registersPerThreadBase") d.registersPerThreadBase = v;
  else if (key == "registerGranule") d.registerGranule = v;
  else if (key == "registersPerExtraLoad") d.registersPerExtraLoad = v;
  else d.maxThreadgroupArguments = v;
}

export class DeviceResult {
  device: Device;
  diags: Array<Diagnostic>;

  constructor(device: Device, diags: Array<Diagnostic>) {
    this.device = device;
    this.diags = diags;
  }
}

/** The most threads per group the emitter supports: 32 SIMD groups of 32 lanes. */
export const MAX_GROUP_THREADS: i32 = 1024;

/** A device from a JSON description; fields not given keep the M1 Max defaults. */
export function readDevice(v: JsonValue | null): DeviceResult {
  const d = new Device();
  const diags = new Array<Diagnostic>();
  if (v === null) return new DeviceResult(d, diags);
  const obj = changetype<JsonValue>(v);
  if (obj.kind != J_OBJ) {
    diags.push(diag("TPL005", "/options/device", "The device description must be a JSON object."));
    return new DeviceResult(d, diags);
  }
  for (let i: i32 = 0; i < obj.keys.length; i++) {
    const k = obj.keys[i];
    const x = obj.items[i];
    const p = "/options/device/" + k;
    if (k == "name" || k == "source") {
      if (x.kind != J_STR) {
        diags.push(diag("TPL005", p, "The device field " + k + " must be a string."));
        continue;
      }
      if (k == "name") d.name = x.text;
      else d.source = x.text;
    } else if (k == "vectorWidths") {
      if (x.kind != J_ARR || x.items.length == 0) {
        diags.push(diag("TPL005", p, "vectorWidths must be a non-empty array such as [1, 4, 8]."));
        continue;
      }
      const ws = new Array<i32>();
      for (let j: i32 = 0; j < x.items.length; j++) {
        const w = x.items[j];
        if (w.kind != J_NUM || !isI32Text(w.text) || parseI32(w.text) <= 0) {
          diags.push(diag("TPL005", p + "/" + j.toString(), "Each vector width must be a positive integer."));
        } else ws.push(parseI32(w.text));
      }
      d.vectorWidths = ws;
    } else if (k == "costModel") {
      readCost(d, x, diags);
    } else if (INT_FIELDS.indexOf(k) >= 0) {
      if (x.kind != J_NUM || !isI32Text(x.text) || parseI32(x.text) <= 0) {
        diags.push(diag("TPL005", p, "The device field " + k + " must be a positive integer."));
        continue;
      }
      setInt(d, k, parseI32(x.text));
    } else {
      diags.push(diag("TPL005", p, "Unknown device field \"" + k + "\"; see the device description in ARCHITECTURE.md."));
    }
  }
  if (d.simdWidth != 32) diags.push(diag("TPL005", "/options/device/simdWidth", "The emitter targets 32-lane SIMD groups (Apple GPUs); simdWidth must be 32."));
  // a cooperative program combines its SIMD groups' partials with one 32-lane SIMD reduction, so a
  // group holds at most 32 SIMD groups (Metal and CUDA both allow 1024 threads per group)
  if (d.maxThreadsPerGroup > MAX_GROUP_THREADS) diags.push(diag("TPL005", "/options/device/maxThreadsPerGroup", "maxThreadsPerGroup is " + d.maxThreadsPerGroup.toString() + ", but at most " + MAX_GROUP_THREADS.toString() + " threads (32 SIMD groups of 32) are supported: a cooperative program combines its SIMD groups' partials with one 32-lane SIMD reduction (Metal and CUDA devices allow 1024)."));
  return new DeviceResult(d, diags);
}

/** Every field of a device description: name, unit, what it means and who reads it. */
export const DEVICE_FIELDS: Array<string> = [
  "name", "text", "A label for reports; never used to decide anything.",
  "source", "text", "Where the figures come from (a datasheet, a measurement); documentation only.",
  "simdWidth", "lanes", "Lanes per SIMD group (a warp); the emitter targets 32. Read by the solver (W = 32 * S) and the rules.",
  "maxThreadsPerGroup", "threads", "Largest threadgroup the device dispatches (Apple GPUs: 1024), at most 1024 (a cooperative program combines at most 32 SIMD groups). Read by thread-limit and the solver's search bound.",
  "threadgroupMemoryBytes", "bytes", "Threadgroup (shared) memory one group may declare (Apple GPUs: 32768). Read by threadgroup-memory.",
  "vectorWidths", "list of elements", "Vector widths V a worker may load at once, e.g. [1, 4, 8]. The solver's V candidates.",
  "privateBudget", "scalars per worker", "Registers a worker may spend on a cached input stripe. Over budget: the input is read uncached (TPL004).",
  "gpuCores", "cores", "GPU cores (compute units / SMs). Cost model: how many groups run at once (waves, concurrency).",
  "maxThreadsPerCore", "threads", "Threads resident on one core at full occupancy. Cost model: groups per core.",
  "threadgroupMemoryPerCore", "bytes", "Threadgroup memory of one core, shared by its resident groups. Cost model: groups per core.",
  "maxGroupsPerCore", "groups", "Most groups resident on one core. Cost model: groups per core.",
  "bandwidthBytesPerNs", "bytes per ns (= GB/s)", "Device memory bandwidth. Cost model: the memory term (bytes / bandwidth, in ns).",
  "clockMhz", "MHz", "GPU core clock. Cost model: ns per cycle for the latency, arithmetic and barrier terms.",
  "lanesPerCore", "FP32 lanes", "Scalar FP32 ALUs per core. Cost model: arithmetic throughput.",
  "maxBufferArguments", "arguments", "Buffer arguments one kernel may bind (Metal: 31). A document with more parameters is a plan error (TPL007).",
  "maxThreadgroupArguments", "arguments", "Threadgroup-memory arguments one kernel may bind (Metal: 31). Checked like maxBufferArguments (TPL007).",
  "registersPerCore", "registers", "Optional (0: unknown). 32-bit registers of one core, shared by its resident threads. Cost model: a group of T threads each needing registersPerThreadBase + its cached stripe (rounded up to registerGranule) bounds the groups per core.",
  "registersPerThreadBase", "registers", "Optional. Registers a thread uses besides its cached stripe (an estimate from compiled kernels). Read with registersPerCore.",
  "registerGranule", "registers", "Optional. Registers are given to a thread in multiples of this (NVIDIA: 8). Read with registersPerCore.",
  "registersPerExtraLoad", "registers", "Optional. Registers a thread of a cached stripe holds for each buffer beyond the first that one of its stages loads from memory (a LayerNorm's weight and bias beside its output), added to registersPerThreadBase + the cached stripe. Read with registersPerCore.",
  "costModel", "object of numbers", "The cost model's coefficients (setupNs, barrierNs, simdNs, loadIssueCycles, loopOverheadCycles, couplingFraction, underfillWeight, uncoalescedFactor, threadSetupCycles, memoryFactor, error, vectorChainFraction, partialLineFraction, storeChainNs) and their source; omitted ones keep the built-in estimates. tile calibrate fits them to sweeps; error > 0 lets the solver prefer fewer programs per group when the best candidate's predicted advantage is within it.",
];

export const DEVICE_FIELD_STRIDE: i32 = 3;

/** The field documentation as JSON: [{name, unit, meaning}]. */
export function deviceFieldsJson(out: Text): void {
  out.add("[");
  for (let i: i32 = 0; i < DEVICE_FIELDS.length; i += DEVICE_FIELD_STRIDE) {
    if (i > 0) out.add(",");
    out.add("{\"name\":").quoted(DEVICE_FIELDS[i]);
    out.add(",\"unit\":").quoted(DEVICE_FIELDS[i + 1]);
    out.add(",\"meaning\":").quoted(DEVICE_FIELDS[i + 2]).add("}");
  }
  out.add("]");
}

/** A coefficient as JSON: integers as integers, others as the shortest f32 text (the precision
 *  they are read with; a default such as 0.15 prints as its f32 neighbour's shortest form). */
function formatCost(v: f64): string {
  if (v == Math.floor(v) && Math.abs(v) < 1e9) return formatF64Fixed(v, 0);
  return formatF32(v);
}

export function deviceJson(d: Device, out: Text): void {
  out.add("{\"name\":").quoted(d.name);
  out.add(",\"source\":").quoted(d.source);
  out.add(",\"simdWidth\":").add(d.simdWidth.toString());
  out.add(",\"maxThreadsPerGroup\":").add(d.maxThreadsPerGroup.toString());
  out.add(",\"threadgroupMemoryBytes\":").add(d.threadgroupMemoryBytes.toString());
  out.add(",\"vectorWidths\":[");
  for (let i: i32 = 0; i < d.vectorWidths.length; i++) {
    if (i > 0) out.add(",");
    out.add(d.vectorWidths[i].toString());
  }
  out.add("],\"privateBudget\":").add(d.privateBudget.toString());
  out.add(",\"gpuCores\":").add(d.gpuCores.toString());
  out.add(",\"maxThreadsPerCore\":").add(d.maxThreadsPerCore.toString());
  out.add(",\"threadgroupMemoryPerCore\":").add(d.threadgroupMemoryPerCore.toString());
  out.add(",\"maxGroupsPerCore\":").add(d.maxGroupsPerCore.toString());
  out.add(",\"bandwidthBytesPerNs\":").add(d.bandwidthBytesPerNs.toString());
  out.add(",\"clockMhz\":").add(d.clockMhz.toString());
  out.add(",\"lanesPerCore\":").add(d.lanesPerCore.toString());
  out.add(",\"maxBufferArguments\":").add(d.maxBufferArguments.toString());
  out.add(",\"maxThreadgroupArguments\":").add(d.maxThreadgroupArguments.toString());
  // the optional residency fields: written only when given, so a record without them reads back as it was
  if (d.registersPerCore > 0) out.add(",\"registersPerCore\":").add(d.registersPerCore.toString());
  if (d.registersPerThreadBase > 0) out.add(",\"registersPerThreadBase\":").add(d.registersPerThreadBase.toString());
  if (d.registerGranule > 0) out.add(",\"registerGranule\":").add(d.registerGranule.toString());
  if (d.registersPerExtraLoad > 0) out.add(",\"registersPerExtraLoad\":").add(d.registersPerExtraLoad.toString());
  out.add(",\"costModel\":{");
  for (let i: i32 = 0; i < COST_FIELDS.length; i++) {
    out.quoted(COST_FIELDS[i]).add(":").add(formatCost(getCost(d.cost, COST_FIELDS[i]))).add(",");
  }
  out.add("\"source\":").quoted(d.cost.source).add("}");
  out.add("}");
}
