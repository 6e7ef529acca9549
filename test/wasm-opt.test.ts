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
import { compactFloatConstants, dropResults, joinConcats, optimizeWasm } from "../scripts/opt-wasm.mjs";

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

// Step 4 of the release optimization rewrites the optimized module's text: chains of
// String#concat calls become one helper call each (joinConcats), integral f64 constants become
// converted i32 constants (compactFloatConstants). Both must leave every result unchanged.

/** AssemblyScript's string layout in miniature: an object's 20-byte header ends with its type
 *  id (2 for strings) and byte size; `__new` bumps a pointer; String#concat as the standard
 *  library's (sizes from the headers, the static empty string for an empty result). Exports
 *  build strings from the pieces at 1024 + 32 * k (k = 0..3: "ab", "", "cde", "f"). */
const CONCAT_WAT = `(module
 (memory $0 1)
 (global $top (mut i32) (i32.const 4096))
 (data (i32.const 1016) "\\02\\00\\00\\00\\04\\00\\00\\00a\\00b\\00")
 (data (i32.const 1048) "\\02\\00\\00\\00\\00\\00\\00\\00")
 (data (i32.const 1080) "\\02\\00\\00\\00\\06\\00\\00\\00c\\00d\\00e\\00")
 (data (i32.const 1112) "\\02\\00\\00\\00\\02\\00\\00\\00f\\00")
 (data (i32.const 2040) "\\02\\00\\00\\00\\00\\00\\00\\00")
 (export "memory" (memory $0))
 (export "left" (func $left))
 (export "right" (func $right))
 (export "long" (func $long))
 (export "pair" (func $pair))
 (func $~lib/rt/stub/__new (param $0 i32) (param $1 i32) (result i32)
  (local $2 i32)
  (local.set $2 (i32.add (global.get $top) (i32.const 20)))
  (i32.store (i32.sub (local.get $2) (i32.const 8)) (local.get $1))
  (i32.store (i32.sub (local.get $2) (i32.const 4)) (local.get $0))
  (global.set $top (i32.and (i32.add (i32.add (local.get $2) (local.get $0)) (i32.const 15)) (i32.const -16)))
  (local.get $2))
 (func $~lib/string/String#concat (param $0 i32) (param $1 i32) (result i32)
  (local $2 i32) (local $3 i32) (local $4 i32)
  (if (i32.eqz (local.tee $4 (i32.add
     (local.tee $2 (i32.and (i32.load offset=16 (i32.sub (local.get $0) (i32.const 20))) (i32.const -2)))
     (local.tee $3 (i32.and (i32.load offset=16 (i32.sub (local.get $1) (i32.const 20))) (i32.const -2))))))
   (then (return (i32.const 2048))))
  (memory.copy (local.tee $4 (call $~lib/rt/stub/__new (local.get $4) (i32.const 2))) (local.get $0) (local.get $2))
  (memory.copy (i32.add (local.get $2) (local.get $4)) (local.get $1) (local.get $3))
  (local.get $4))
 (func $~lib/string/String.__concat@cold (param $0 i32) (param $1 i32) (result i32)
  (call $~lib/string/String#concat (local.get $0) (local.get $1)))
 (func $piece (param $0 i32) (result i32)
  (i32.add (i32.const 1024) (i32.shl (i32.and (local.get $0) (i32.const 3)) (i32.const 5))))
 (func $left (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (call $~lib/string/String#concat
   (call $~lib/string/String.__concat@cold
    (call $~lib/string/String#concat (call $piece (local.get $0)) (call $piece (local.get $1)))
    (call $piece (local.get $2)))
   (call $piece (local.get $0))))
 (func $right (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (call $~lib/string/String#concat (call $piece (local.get $0))
   (call $~lib/string/String#concat (call $piece (local.get $1)) (call $piece (local.get $2)))))
 (func $long (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (local $3 i32)
  (local.set $3 (call $piece (local.get $2)))
  (call $~lib/string/String#concat
   (call $~lib/string/String#concat
    (call $~lib/string/String#concat
     (call $~lib/string/String#concat
      (call $~lib/string/String#concat
       (call $~lib/string/String#concat
        (call $~lib/string/String#concat (call $piece (local.get $0)) (local.get $3))
        (call $piece (local.get $1)))
       (i32.const 1120))
      (call $piece (local.get $0)))
     (local.get $3))
    (i32.const 1056))
   (call $piece (local.get $1))))
 (func $pair (param $0 i32) (param $1 i32) (param $2 i32) (result i32)
  (call $~lib/string/String#concat (call $piece (local.get $0)) (call $piece (local.get $1))))
)`;

/** Every export's string for every choice of pieces, as text, and the empty result's address. */
async function concatResults(text: string): Promise<string[]> {
  const m = binaryen.parseText(text);
  m.setFeatures(binaryen.Features.MVP | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt | binaryen.Features.MutableGlobals);
  if (!m.validate()) throw new Error("invalid module");
  const bytes = m.emitBinary();
  m.dispose();
  const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
  const memory = instance.exports.memory as WebAssembly.Memory;
  const out: string[] = [];
  for (const name of ["left", "right", "long", "pair"]) {
    for (let k = 0; k < 64; k++) {
      const at = (instance.exports[name] as (a: number, b: number, c: number) => number)(k & 3, (k >> 2) & 3, k >> 4);
      const view = new DataView(memory.buffer);
      expect(view.getUint32(at - 8, true)).toBe(2);
      const size = view.getUint32(at - 4, true);
      let s = "";
      for (let i = 0; i < size; i += 2) s += String.fromCharCode(view.getUint16(at + i, true));
      out.push(size === 0 ? "<empty " + at + ">" : s);
    }
  }
  return out;
}

describe("the release optimization's last rewrites", () => {
  test("concatenation chains become one helper call each, with the same strings", async () => {
    const r = joinConcats(CONCAT_WAT);
    expect(r).not.toBeNull();
    const text = r!.text;
    // left: 4 pieces, right: 3, long: 8 (a 5-piece helper, then 4: the helpers nest); pair stays
    expect(r!.helpers).toEqual(["~tile/concat3", "~tile/concat4", "~tile/concat5"]);
    expect(text.match(/\(call \$~tile\/concat\d/g)!.length).toBe(4);
    expect(text).not.toMatch(/\(call \$~lib\/string\/String(#concat|\.__concat@cold) \(call \$~lib\/string\/String(#concat|\.__concat@cold)/);
    const before = await concatResults(CONCAT_WAT);
    expect(before).toContain("<empty 2048>");
    expect(before).toContain("abfcdefabfcde"); // long("ab", "cde", "f")
    expect(await concatResults(text)).toEqual(before);
    // nothing to join: null
    expect(joinConcats(CONCAT_WAT.replace(/\(func \$left[\s\S]*?(?=\n \(func \$pair)/, "").replace(/ \(export "(left|right|long)" \(func \$\w+\)\)\n/g, ""))).toBeNull();
  });

  test("integral f64 constants become converted i32 constants in function bodies only, with the same values", async () => {
    const values = ["0", "1", "-1", "63", "2147483647", "-2147483648", "2147483648", "4294967295", "4294967296", "-0", "0.5", "1e300", "-nan", "inf"];
    const wat = `(module
 (global $g f64 (f64.const 1))
 (export "g" (global $g))
${values.map((v, i) => ` (export "c${i}" (func $c${i}))`).join("\n")}
${values.map((v, i) => ` (func $c${i} (result f64) (f64.const ${v}))`).join("\n")}
)`;
    const compact = compactFloatConstants(wat);
    expect(compact).not.toBeNull();
    expect(compact).toContain("(global $g f64 (f64.const 1))");
    expect(compact!.match(/f64\.convert_i32_[su]/g)!.length).toBe(8);
    const run = async (text: string) => {
      const m = binaryen.parseText(text);
      const bytes = m.emitBinary();
      m.dispose();
      const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
      const e = instance.exports as Record<string, () => number>;
      return { size: bytes.length, values: [(instance.exports.g as WebAssembly.Global).value, ...values.map((v, i) => e["c" + i]())].map((x) => (Object.is(x, -0) ? "-0" : String(x))) };
    };
    const a = await run(wat);
    const b = await run(compact!);
    expect(b.values).toEqual(a.values);
    expect(a.values).toContain("-0");
    expect(b.size).toBeLessThan(a.size);
    expect(compactFloatConstants(wat.replace(/\(f64\.const (-?\d+)\)\)$/gm, "(f64.const 0.5))"))).toBeNull();
  });
});

describe("the release optimization's dropped results", () => {
  test("a dropped call of a listed function calls its @void copy (Text#add outside warm functions only), with the same effects", async () => {
    const push = "$~lib/array/Array<~lib/string/String>#push@cold";
    const add = "$core/util/text/Text#add";
    const wat = `(module
 (global $n (mut i32) (i32.const 0))
 (export "warm" (func $warm))
 (export "cold" (func $cold))
 (func ${push} (param $0 i32) (param $1 i32) (result i32)
  (global.set $n (i32.add (i32.mul (global.get $n) (i32.const 3)) (i32.add (local.get $0) (local.get $1))))
  (global.get $n))
 (func ${add} (param $0 i32) (param $1 i32) (result i32)
  (global.set $n (i32.xor (i32.mul (global.get $n) (i32.const 5)) (local.get $1)))
  (local.get $0))
 (func $warm (param $0 i32) (result i32)
  (drop (call ${push} (local.get $0) (i32.const 1)))
  (drop (call ${add} (local.get $0) (call ${push} (local.get $0) (i32.const 2))))
  (global.get $n))
 (func $cold (param $0 i32) (result i32)
  (drop (call ${add} (local.get $0) (i32.const 7)))
  (drop (call ${push} (local.get $0) (i32.const 4)))
  (i32.add (call ${push} (local.get $0) (i32.const 5)) (global.get $n)))
)`;
    const text = dropResults(wat, new Set(["warm"]));
    expect(text).not.toBeNull();
    // warm: the dropped push calls the copy, the dropped add stays, the push whose value is used stays
    expect(text!.match(/\(call \$~lib\/array\/Array<~lib\/string\/String>#push@cold@void /g)!.length).toBe(2);
    expect(text!.match(/\(call \$core\/util\/text\/Text#add@void /g)!.length).toBe(1);
    expect(text!.match(/\(call \$~lib\/array\/Array<~lib\/string\/String>#push@cold /g)!.length).toBe(2 + 1);
    const run = async (t: string) => {
      const m = binaryen.parseText(t);
      if (!m.validate()) throw new Error("invalid module");
      const bytes = m.emitBinary();
      m.dispose();
      const { instance } = await WebAssembly.instantiate(new Uint8Array(bytes), {});
      const e = instance.exports as Record<string, (x: number) => number>;
      const out: number[] = [];
      for (const x of [1, 2, 3, -9, 1000]) out.push(e.warm(x), e.cold(x));
      return out;
    };
    expect(await run(text!)).toEqual(await run(wat));
    expect(dropResults(wat.replace(/\(drop \(call \$(~lib|core)[^\n]*\n/g, ""), new Set())).toBeNull();
  });
});
