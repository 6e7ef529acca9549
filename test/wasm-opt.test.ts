// scripts/opt-wasm.mjs (run by `npm run build:wasm`) runs asc's -O3 pass list with binaryen's
// flexible inlining kept only for a list of hot functions, and copied only into the callers a
// profile lists for it, and binaryen's "always" inlining of functions of 3-12 units only into the
// functions a profile found warm. These check that a listed function is copied into its (listed)
// callers and an unlisted one of the same shape stays a function, that the size-neutral inlining
// still happens for unlisted functions, that a small function is copied into warm callers only
// (the others call one copy) while a tiny one is copied everywhere, and that behaviour is
// unchanged.
import { describe, expect, test } from "vitest";
import binaryen from "binaryen";
import { optimizeWasm } from "../scripts/opt-wasm.mjs";

/** A module with names: two leaf functions of the same shape (too big for the always-inline
 *  size, small enough for flexible inlining), each called from three exports, and a helper
 *  called from one place only. */
function makeModule(): Uint8Array {
  const m = new binaryen.Module();
  m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.SignExt | binaryen.Features.MutableGlobals);
  const x = () => m.local.get(0, binaryen.i32);
  // about 30 expression nodes, no calls, no loops
  const body = (k: number) => {
    let e = m.i32.add(m.i32.mul(x(), m.i32.const(k)), m.i32.const(7));
    for (let i = 0; i < 6; i++) e = m.i32.xor(m.i32.rotl(e, m.i32.const(i + 3)), m.i32.add(x(), m.i32.const(i * k + 1)));
    return e;
  };
  m.addFunction("hotLeaf", binaryen.i32, binaryen.i32, [], body(3));
  m.addFunction("coldLeaf", binaryen.i32, binaryen.i32, [], body(5));
  m.addFunction("onlyOnce", binaryen.i32, binaryen.i32, [], m.i32.add(body(9), m.call("coldLeaf", [x()], binaryen.i32)));
  for (let i = 0; i < 3; i++) {
    const name = "use" + i;
    const f = m.i32.add(m.call("hotLeaf", [m.i32.add(x(), m.i32.const(i))], binaryen.i32), m.call("coldLeaf", [m.i32.sub(x(), m.i32.const(i))], binaryen.i32));
    m.addFunction(name, binaryen.i32, binaryen.i32, [], i === 0 ? m.i32.add(f, m.call("onlyOnce", [x()], binaryen.i32)) : f);
    m.addFunctionExport(name, name);
  }
  if (!m.validate()) throw new Error("invalid test module");
  const debug = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true); // keep the names, as asc --debug does
  const bytes = m.emitBinary();
  binaryen.setDebugInfo(debug);
  m.dispose();
  return bytes;
}

/** A module with names: a small function (7 units: inlined by always inlining up to 12 units,
 *  not up to 2) and a tiny one (2 units), each called from three exports. */
function makeSmallModule(): Uint8Array {
  const m = new binaryen.Module();
  m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.SignExt | binaryen.Features.MutableGlobals);
  const x = () => m.local.get(0, binaryen.i32);
  m.addFunction("small", binaryen.i32, binaryen.i32, [], m.i32.xor(m.i32.add(m.i32.mul(x(), m.i32.const(5)), m.i32.const(3)), m.i32.const(7)));
  m.addFunction("tiny", binaryen.i32, binaryen.i32, [], m.i32.eqz(x()));
  for (let i = 0; i < 3; i++) {
    const name = "use" + i;
    m.addFunction(name, binaryen.i32, binaryen.i32, [], m.i32.add(m.call("small", [m.i32.add(x(), m.i32.const(i))], binaryen.i32), m.call("tiny", [m.i32.sub(x(), m.i32.const(i))], binaryen.i32)));
    m.addFunctionExport(name, name);
  }
  if (!m.validate()) throw new Error("invalid test module");
  const debug = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true);
  const bytes = m.emitBinary();
  binaryen.setDebugInfo(debug);
  m.dispose();
  return bytes;
}

/** The number of functions and of call instructions in a module. */
function shape(bytes: Uint8Array): { functions: number; calls: number } {
  const m = binaryen.readBinary(bytes);
  const r = { functions: m.getNumFunctions(), calls: (m.emitText().match(/\(call \$/g) ?? []).length };
  m.dispose();
  return r;
}

function functionNames(bytes: Uint8Array): string[] {
  const debug = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true);
  const m = binaryen.readBinary(bytes);
  binaryen.setDebugInfo(debug);
  const names: string[] = [];
  for (let k = 0; k < m.getNumFunctions(); k++) names.push(binaryen.getFunctionInfo(m.getFunctionByIndex(k)).name);
  m.dispose();
  return names;
}

async function outputs(bytes: Uint8Array): Promise<number[]> {
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
  const out: number[] = [];
  for (const x of [0, 1, -5, 123456789, 2147483647]) for (let i = 0; i < 3; i++) out.push((instance.exports["use" + i] as (v: number) => number)(x));
  return out;
}

describe("the release optimization's inlining", () => {
  test("a hot function is inlined into every caller; an unlisted one of the same shape stays; one-caller inlining stays", async () => {
    const original = makeModule();
    expect(functionNames(original)).toEqual(["hotLeaf", "coldLeaf", "onlyOnce", "use0", "use1", "use2"]);
    const r = optimizeWasm(original, ["hotLeaf", "notInTheModule"], null, null);
    expect(r.missing).toEqual(["notInTheModule"]);
    // names are dropped from the output: count functions and read the code for calls instead
    const m = binaryen.readBinary(r.bytes);
    const count = m.getNumFunctions();
    m.dispose();
    // hotLeaf and onlyOnce were inlined; coldLeaf remains beside the three exports
    expect(count).toBe(4);
    expect(await outputs(r.bytes)).toEqual(await outputs(original));
    // with both listed, both leaves are inlined
    const both = optimizeWasm(original, ["hotLeaf", "coldLeaf"], null, null);
    const m2 = binaryen.readBinary(both.bytes);
    expect(m2.getNumFunctions()).toBe(3);
    m2.dispose();
    expect(await outputs(both.bytes)).toEqual(await outputs(original));
  });

  test("with its callers listed, a hot function is inlined into those only; the others call one copy", async () => {
    const original = makeModule();
    const r = optimizeWasm(original, ["hotLeaf"], { hotLeaf: ["use0"] }, null);
    expect(r.missing).toEqual([]);
    const m = binaryen.readBinary(r.bytes);
    // the three exports, coldLeaf, and the copy of hotLeaf that use1 and use2 call
    expect(m.getNumFunctions()).toBe(5);
    const calls = (m.emitText().match(/\(call \$/g) ?? []).length;
    m.dispose();
    // use0 calls coldLeaf twice (once through onlyOnce); use1 and use2 call coldLeaf and the copy
    expect(calls).toBe(6);
    expect(await outputs(r.bytes)).toEqual(await outputs(original));
    // all callers listed: as with no list
    const all = optimizeWasm(original, ["hotLeaf"], { hotLeaf: ["use0", "use1", "use2"] }, null);
    const m2 = binaryen.readBinary(all.bytes);
    expect(m2.getNumFunctions()).toBe(4);
    m2.dispose();
  });

  test("a small function is inlined into warm callers only; the others call one copy; a tiny one is inlined everywhere", async () => {
    const original = makeSmallModule();
    // no warm list: both inlined into the three exports
    expect(shape(optimizeWasm(original, [], null, null).bytes)).toEqual({ functions: 3, calls: 0 });
    // use0 warm: small inlined there, use1 and use2 call its copy; tiny inlined into all three
    const r = optimizeWasm(original, [], null, ["use0"]);
    expect(shape(r.bytes)).toEqual({ functions: 4, calls: 2 });
    expect(await outputs(r.bytes)).toEqual(await outputs(original));
    // nothing warm: small stays one function, called from all three
    const none = optimizeWasm(original, [], null, []);
    expect(shape(none.bytes)).toEqual({ functions: 4, calls: 3 });
    expect(await outputs(none.bytes)).toEqual(await outputs(original));
    // all warm: as with no list
    expect(shape(optimizeWasm(original, [], null, ["use0", "use1", "use2"]).bytes)).toEqual({ functions: 3, calls: 0 });
  });
});
