// Optimizes the release WebAssembly build with binaryen (part of `npm run build:wasm`; see
// ARCHITECTURE.md, "Size of the WebAssembly build").
//
//   asc core/index-wasm.ts --target release --transform ./scripts/opt-wasm.mjs
//                                    (asconfig: no binaryen optimization, names kept; the
//                                     transform is this file's default export, below)
//   node scripts/opt-wasm.mjs <module.wasm>       optimizes the module in place, names dropped
//   node scripts/opt-wasm.mjs --names <module.wasm>   the same, names kept (wasm-low-strings.mjs)
//   node scripts/opt-wasm.mjs --profile-build <module.wasm>
//                                    the same without flexible inlining, names kept (to profile)
//
// What `asc -O3` (optimizeLevel 3, shrinkLevel 0) does, with one difference: binaryen's
// "flexible" inlining (a function of up to 70 units, without calls, copied into every caller:
// about 35 KB of the module) is kept only for the functions in HOT below. Every other function is
// still inlined where the size-neutral rules do it (up to 12 units, or a single caller), exactly
// where the same pipeline without flexible inlining inlines it.
//
// A hot function is copied only into the callers that called it in the profile (HOT_CALLERS,
// scripts/opt-wasm-callers.json): its other callers call one copy of it, `<name>@cold`, which
// stays a function. Most of its call sites are in code the benchmark hardly runs (readers,
// diagnostics, legality rules): copied into every caller, the 50 cost about 28 KB of code; into
// the profiled callers only, about 12 KB, and emit and plan were as fast in alternated runs.
// The passes: (1) the module's text with the cold call sites redirected to the copies;
// (2) asc's pipeline without flexible inlining, the hot functions and copies kept whole;
// (3) the pipeline again, flexible inlining allowed for the hot functions only.
//
// The transform: asc derives two things from its optimization levels, the levels binaryen runs at
// and the compile-time constants ASC_OPTIMIZE_LEVEL / ASC_SHRINK_LEVEL the standard library is
// compiled under (and the static data's start address). The release target asks asc for level 0
// (no binaryen passes) while this transform sets those constants to the -O3 values, so the
// standard library and memory layout are -O3's and the passes are run here.
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import binaryen from "binaryen";
import { Compiler } from "assemblyscript";

// The static strings that get the lowest addresses (scripts/opt-wasm-low-strings.json, written
// by scripts/wasm-low-strings.mjs): asc lays static data out from address 1024 in the order it
// meets the strings, and code refers to a string by its address, an `i32.const` of 2 LEB bytes
// below 8192 and 3 above. These are the strings with the most references in the code per byte of
// their objects that fit in 1024-8192 (about 2,600 references). A string no longer in the core
// only takes its bytes of data; a missing one only costs the byte per reference.
const LOW_STRINGS = JSON.parse(fs.readFileSync(new URL("./opt-wasm-low-strings.json", import.meta.url), "utf8"));

/** The AssemblyScript transform (asconfig "transform"): compile as for -O3, shrink level 0, and
 *  lay the strings of LOW_STRINGS out first. */
export default class OptimizeLevelHints {
  afterParse() {
    this.program.options.optimizeLevelHint = 3;
    this.program.options.shrinkLevelHint = 0;
  }

  afterInitialize(program) {
    // the compiler is made after this hook: its first file compiled starts with these strings
    const compileFile = Compiler.prototype.compileFile;
    Compiler.prototype.compileFile = function (file) {
      if (this.program === program && !this.tileLowStrings) {
        this.tileLowStrings = true;
        for (const text of LOW_STRINGS) this.ensureStaticStringPtr(text);
      }
      return compileFile.call(this, file);
    };
  }
}

// The functions that keep flexible inlining: the 50 functions with the most self time (each at
// least 0.3% of the WebAssembly time) in a CPU profile of `npm run bench:core` (plan and emit of
// every built-in case, option variant and fuzz document) run on the build without flexible
// inlining (node --cpu-prof). Without flexible inlining emit is about 1.7 times slower; with it
// for these 50 only, emit was as fast as with it for all in alternated runs, and the code is
// 7.6 KB smaller. A name that no longer exists only costs speed: the script warns about it.
export const HOT = [
  "~lib/string/String#charCodeAt",
  "~lib/string/String.__eq",
  "core/audit/scan/tokenize",
  "core/util/text/Text#quoted",
  "~lib/rt/stub/__new",
  "~lib/rt/stub/__alloc",
  "~lib/array/Array<~lib/string/String>#__get",
  "core/index-wasm/tile_call",
  "~lib/typedarray/Int32Array#__get",
  "core/util/json/Reader#simpleString",
  "~lib/string/String.__concat",
  "core/cost/model/costCooperativeInto",
  "~lib/array/Array<~lib/string/String>#push",
  "~lib/array/Array<~lib/string/String>#join",
  "~lib/typedarray/Int32Array#__set",
  "~lib/util/string/compareImpl",
  "~lib/array/ensureCapacity",
  "~lib/array/Array<~lib/string/String>#__set",
  "~lib/rt/stub/maybeGrowMemory",
  "core/audit/audit/Auditor#expr",
  "~lib/array/Array<~lib/string/String>#indexOf",
  "core/audit/scan/Tokens#push",
  "~lib/string/String#substring",
  "core/util/text/Text#add",
  "~lib/array/Array<i32>#__get",
  "core/audit/audit/Auditor#code",
  "~lib/array/Array<~lib/string/String>#constructor",
  "core/audit/scan/Tokens#code",
  "core/util/json/Reader#value",
  "core/audit/audit/Auditor#statementEnd",
  "core/util/json/Reader#skipSpace",
  "core/solver/solver/Search#add",
  "core/util/num/bnDivQuot",
  "core/audit/audit/auditMsl",
  "core/ir/access/exprLoads",
  "~lib/array/Array<f64>#constructor",
  "core/cost/model/finish",
  "core/util/text/ceilDiv",
  "core/util/json/Reader#peek",
  "core/ir/ast/Doc#sizeIndex",
  "core/audit/scan/rangeIs",
  "~lib/array/Array<f64>#__get",
  "core/audit/audit/Auditor#statement",
  "~lib/array/Array<f64>#push",
  "core/audit/scan/Tokens#word",
  "core/ir/access/collectAccess",
  "core/emit/names/Names#lookup",
  "core/audit/scan/isAlpha",
  "core/emit/names/isReserved",
  "~lib/rt/stub/__renew",
];

// The callers each hot function is inlined into: every caller of it with samples in the same
// profile (caller as named in the build without flexible inlining; "(host)" for an export).
// Written by scripts/wasm-hot-callers.mjs from a `node --cpu-prof` profile of bench:core.
const HOT_CALLERS = JSON.parse(fs.readFileSync(new URL("./opt-wasm-callers.json", import.meta.url), "utf8"));

// The functions of the build without flexible inlining that had samples in the same profile
// (at least WARM_MIN each; written by scripts/wasm-hot-callers.mjs). Only these get binaryen's
// "always" inlining of functions of 3 to 12 units (ALWAYS_INLINE); elsewhere, such a function
// is called (a copy of it, `<name>@cold`, where warm functions inline it too). A missing name
// only costs speed.
const WARM = JSON.parse(fs.readFileSync(new URL("./opt-wasm-warm.json", import.meta.url), "utf8"));

// binaryen's sizes for always inlining: asc's -O3 value, and the one of its shrink level 2 (a
// function this small is inlined everywhere: a call to it is about as big as its body)
const ALWAYS_INLINE = 12;
const ALWAYS_INLINE_TINY = 2;

// asc's default WebAssembly features (asc --help: mutable-globals, sign-extension,
// nontrapping-f2i, bulk-memory)
const FEATURES = binaryen.Features.MVP | binaryen.Features.MutableGlobals | binaryen.Features.SignExt | binaryen.Features.NontrappingFPToInt | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt;

/** asc's pass pipeline for optimizeLevel 3 (run by binaryen at level 4), shrinkLevel 0: a copy of
 *  Module#optimize in assemblyscript 0.28 (node_modules/assemblyscript/dist/assemblyscript.js). */
function ascPasses() {
  return [
    "duplicate-function-elimination", "remove-unused-module-elements", "once-reduction",
    "inlining", "simplify-globals-optimizing", "generate-global-effects",
    "rse", "vacuum", "code-folding", "ssa-nomerge", "local-cse", "remove-unused-brs", "remove-unused-names", "merge-blocks", "precompute-propagate", "simplify-globals-optimizing", "dae-optimizing",
    "simplify-locals-nostructure", "flatten", "vacuum", "simplify-locals-notee-nostructure", "vacuum", "local-cse", "licm", "merge-locals", "reorder-locals",
    "optimize-instructions", "avoid-reinterprets", "dce", "remove-unused-brs", "remove-unused-names", "merge-blocks",
    "inlining", "precompute-propagate", "simplify-globals-optimizing",
    "pick-load-signs", "simplify-locals-notee-nostructure", "vacuum", "local-cse",
    "reorder-locals", "coalesce-locals", "simplify-locals", "coalesce-locals", "reorder-locals", "vacuum",
    "rse", "vacuum", "simplify-globals-optimizing", "simplify-globals-optimizing",
    "remove-unused-brs", "remove-unused-names", "merge-blocks", "optimize-instructions",
    "simplify-globals-optimizing", "dae-optimizing", "inlining-optimizing",
    "optimize-added-constants-propagate", "duplicate-import-elimination", "simplify-globals-optimizing",
    "precompute-propagate", "simplify-globals-optimizing", "simplify-globals-optimizing",
    "directize", "dae-optimizing", "gufa-optimizing", "inlining-optimizing",
    "code-folding", "ssa-nomerge", "rse", "code-pushing",
    "simplify-globals", "vacuum", "precompute-propagate", "inlining-optimizing", "directize", "dae-optimizing", "local-cse", "merge-locals", "coalesce-locals", "simplify-locals", "vacuum", "inlining", "precompute-propagate", "rse", "vacuum", "ssa-nomerge", "simplify-locals", "coalesce-locals",
    "optimize-instructions", "remove-unused-brs", "remove-unused-names", "merge-blocks", "vacuum",
    "simplify-globals-optimizing", "remove-unused-brs", "optimize-instructions", "vacuum",
    "reorder-globals", "reorder-functions", "duplicate-function-elimination",
    "memory-packing", "remove-unused-module-elements", "discard-global-effects",
  ];
}

function functionNames(m) {
  const names = [];
  for (let k = 0; k < m.getNumFunctions(); k++) names.push(binaryen.getFunctionInfo(m.getFunctionByIndex(k)).name);
  return names;
}

/** Runs the pipeline on a module read from `bytes`, with flexible inlining up to `flexible`
 *  units, after marking the functions in `noInline` as not to be inlined whole. */
function optimize(bytes, flexible, noInline, merge = "all", always = ALWAYS_INLINE) {
  const m = readNamed(bytes);
  m.setFeatures(FEATURES);
  binaryen.clearPassArguments();
  for (const name of noInline) {
    // the pass takes a wildcard pattern: '*' and '?' are wildcards, and '?' matches itself too
    binaryen.setPassArgument("no-full-inline", name.replace(/[*?]/g, "?"));
    m.runPasses(["no-full-inline"]);
  }
  binaryen.clearPassArguments();
  binaryen.setOptimizeLevel(4);
  binaryen.setShrinkLevel(0);
  binaryen.setDebugInfo(false);
  binaryen.setZeroFilledMemory(false);
  binaryen.setFastMath(true);
  binaryen.setLowMemoryUnused(true);
  binaryen.setGenerateStackIR(true);
  binaryen.setOptimizeStackIR(true);
  binaryen.setAlwaysInlineMaxSize(always);
  binaryen.setFlexibleInlineMaxSize(flexible);
  binaryen.setOneCallerInlineMaxSize(200);
  binaryen.setAllowInliningFunctionsWithLoops(true);
  binaryen.setPassArgument("partial-inlining-ifs", "4");
  // merge: where duplicate-function elimination runs ("all": as asc, "end": only the last one)
  const passes = ascPasses();
  const first = passes.indexOf("duplicate-function-elimination");
  m.runPasses(passes.filter((pass, k) => pass !== "duplicate-function-elimination" || merge === "all" || (merge === "end" && k !== first)));
  return m;
}

/** The module's text with every call to a function of `hot` from a caller that `hotCallers` does
 *  not list for it (null: no such redirection), and every call to a function of `small` from a
 *  caller that is not in `warm`, redirected to a copy of that function named `<name>@cold`
 *  (appended). A caller is a function of the lean build (`survivors`); a function the lean build
 *  inlined counts as each survivor it was inlined into (found through its callers). Returns the
 *  text and the copies. */
function splitColdCalls(text, hot, hotCallers, survivors, small = new Set(), warm = new Set()) {
  const lines = text.split("\n");
  const funcs = []; // { name, start, end }: the lines of one function
  for (let i = 0; i < lines.length; i++) {
    // a module field starts with one space of indent; a function's lines end at the next field
    if (!lines[i].startsWith(" (")) continue;
    if (funcs.length > 0 && funcs[funcs.length - 1].end === lines.length) funcs[funcs.length - 1].end = i;
    const m = /^ \(func \$(\S+)/.exec(lines[i]);
    if (m) funcs.push({ name: m[1], start: i, end: lines.length });
  }
  const callRe = /\(call \$(\S+)/g;
  const callers = new Map();
  for (const f of funcs) {
    for (let i = f.start + 1; i < f.end; i++) {
      for (const c of lines[i].matchAll(callRe)) {
        if (!callers.has(c[1])) callers.set(c[1], new Set());
        callers.get(c[1]).add(f.name);
      }
    }
  }
  const ancestors = new Map();
  const survivorsOf = (name, seen) => {
    if (survivors.has(name)) return [name];
    if (ancestors.has(name)) return ancestors.get(name);
    if (seen.has(name)) return [];
    seen.add(name);
    const found = new Set();
    for (const c of callers.get(name) ?? []) for (const a of survivorsOf(c, seen)) found.add(a);
    const list = [...found];
    ancestors.set(name, list);
    return list;
  };
  const copies = new Set();
  for (const f of funcs) {
    const owners = survivorsOf(f.name, new Set());
    for (let i = f.start + 1; i < f.end; i++) {
      if (!lines[i].includes("(call $")) continue;
      lines[i] = lines[i].replace(callRe, (call, callee) => {
        if (hot.has(callee)) {
          if (hotCallers === null) return call;
          const listed = hotCallers[callee] ?? [];
          if (owners.some((o) => listed.includes(o))) return call;
        } else if (!small.has(callee) || owners.some((o) => warm.has(o))) return call;
        copies.add(callee);
        return "(call $" + callee + "@cold";
      });
    }
  }
  const added = [];
  for (const f of funcs) {
    if (!copies.has(f.name)) continue;
    const body = lines.slice(f.start, f.end);
    body[0] = body[0].replace("(func $" + f.name, "(func $" + f.name + "@cold").replace(/ \(export "[^"]*"\)/, "");
    added.push(...body);
  }
  let last = lines.length - 1;
  while (!lines[last].startsWith(")")) last--;
  return { text: [...lines.slice(0, last), ...added, ...lines.slice(last)].join("\n"), copies };
}

/** binaryen reads a module's names only with debug info on. */
function readNamed(bytes) {
  binaryen.setDebugInfo(true);
  return binaryen.readBinary(bytes);
}

function withNames(m) {
  const debug = binaryen.getDebugInfo();
  binaryen.setDebugInfo(true);
  const bytes = m.emitBinary();
  binaryen.setDebugInfo(debug);
  return bytes;
}

/** Returns the optimized module's bytes and the names in `hot` the module does not have.
 *  `hotCallers` (callee -> the callers it is inlined into; null: every caller) limits where a hot
 *  function is copied: its other callers call a copy of it that stays a function. `warm` (the
 *  functions of the lean build that always inlining may copy into; null: every function) limits
 *  where a function of 3 to 12 units is copied: other callers call a copy that stays a function. */
export function optimizeWasm(input, hotNames = HOT, hotCallers = HOT_CALLERS, warm = WARM, keepNames = false) {
  const raw = new Uint8Array(input);
  const unoptimized = readNamed(raw);
  const all = new Set(functionNames(unoptimized));
  unoptimized.dispose();
  const missing = hotNames.filter((name) => !all.has(name));
  const hot = new Set(hotNames.filter((name) => all.has(name)));
  // 1. the functions that survive the pipeline without flexible inlining are the callers the
  //    lists name; the other callers of a hot function get its copy, and so do the callers outside
  //    `warm` of a function that only always inlining of more than ALWAYS_INLINE_TINY units copies
  //    (one that survives that pipeline with always inlining up to ALWAYS_INLINE_TINY only)
  let split = raw;
  let copies = new Set();
  if (hotCallers !== null || warm !== null) {
    const lean = optimize(raw, 0, []);
    const survivors = new Set(functionNames(lean));
    lean.dispose();
    const small = new Set();
    if (warm !== null) {
      const tiny = optimize(raw, 0, [], "all", ALWAYS_INLINE_TINY);
      for (const name of functionNames(tiny)) if (!survivors.has(name) && !hot.has(name)) small.add(name);
      tiny.dispose();
    }
    const m = readNamed(raw);
    const r = splitColdCalls(m.emitText(), hot, hotCallers, survivors, small, new Set(warm ?? []));
    m.dispose();
    const parsed = binaryen.parseText(r.text);
    split = withNames(parsed);
    parsed.dispose();
    copies = r.copies;
  }
  // 2. the pipeline without flexible inlining, the hot functions and their copies kept whole (no
  //    duplicate-function elimination, which would merge each copy back into its original)
  const first = optimize(split, 0, [...hot, ...[...copies].map((name) => name + "@cold")], "none");
  const mid = withNames(first);
  const names = functionNames(first);
  first.dispose();
  // 3. the pipeline again with flexible inlining for the hot functions only (duplicates merged at
  //    the end only, once the hot functions are inlined: before, a copy is still its original's
  //    duplicate)
  const m = optimize(mid, 70, names.filter((name) => !hot.has(name)), "end");
  try {
    if (!m.validate()) throw new Error("the optimized module does not validate");
    // 4. dropped results of two functions outside warm code (see dropResults), string
    //    concatenation chains joined into one call each (see joinConcats), and integral f64
    //    constants written as converted i32 constants (see compactFloatConstants)
    const text0 = m.emitText();
    const dropped = dropResults(text0, new Set([...(warm ?? []), ...Object.values(hotCallers ?? {}).flat()]));
    const text = dropped ?? text0;
    const joined = joinConcats(text);
    const compact = compactFloatConstants(joined === null ? text : joined.text);
    if (dropped === null && joined === null && compact === null) return { bytes: keepNames ? withNames(m) : m.emitBinary(), missing };
    const j = binaryen.parseText(compact ?? (joined !== null ? joined.text : text));
    try {
      j.setFeatures(FEATURES);
      for (const name of joined?.helpers ?? []) j.optimizeFunction(name);
      // the helpers are called often: low indices give their calls one-byte LEB indices
      if (joined !== null || dropped !== null) j.runPasses(["reorder-functions"]);
      if (!j.validate()) throw new Error("the module after step 4 does not validate");
      return { bytes: keepNames ? withNames(j) : j.emitBinary(), missing };
    } finally {
      j.dispose();
    }
  } finally {
    m.dispose();
  }
}

// Step 4, second part: an f64.const is 9 bytes; an integral value in i32 range (most of the 400
// are 0, 1, -1 and the i32 limits) as `f64.convert_i32_s (i32.const k)` 3 to 7, the same value
// exactly (-0 excepted, which stays). Last, as no binaryen pass may fold it back; V8's optimizing
// tier folds the conversion of a constant. About 1.6 KB.
export function compactFloatConstants(text) {
  // function bodies only (a global's initializer must stay a constant): binaryen prints the
  // functions after every other module field
  const start = text.indexOf("\n (func ");
  if (start < 0) return null;
  let changed = false;
  const body = text.slice(start).replace(/\(f64\.const (-?[0-9][0-9.e+-]*)\)/g, (whole, literal) => {
    const v = Number(literal);
    if (!Number.isInteger(v) || Object.is(v, -0) || v < -2147483648 || v > 4294967295) return whole;
    changed = true;
    if (v <= 2147483647) return `(f64.convert_i32_s (i32.const ${v}))`;
    return `(f64.convert_i32_u (i32.const ${v - 4294967296}))`;
  });
  if (/^ \((?!func )/m.test(body)) throw new Error("compactFloatConstants: a module field after the functions");
  return changed ? text.slice(0, start) + body : null;
}

// Step 4, first part: the two functions whose results are dropped most often get a function
// that returns nothing, `<name>@void`, which calls the original and drops its result, for one
// byte less per call site (the drop): the cold copy of Array#push of strings and objects (about
// 340 sites; it is called only where the profile saw no call of push) everywhere, and Text#add
// (about 60 sites) outside the profile's warm functions.
const DROPPED = ["~lib/array/Array<~lib/string/String>#push@cold", "core/util/text/Text#add"];

/** The module's text with the dropped calls of DROPPED outside `warm` calling `<name>@void`
 *  instead (appended); null when none does. */
export function dropResults(text, warm) {
  const lines = text.split("\n");
  let last = lines.length - 1;
  while (!lines[last].startsWith(")")) last--;
  const fields = [];
  for (let i = 0; i < last; i++) {
    if (!lines[i].startsWith(" (")) continue;
    if (fields.length > 0) fields[fields.length - 1][1] = i;
    fields.push([i, last]);
  }
  const targets = new Map(); // "$name" -> the function's header line
  for (const [s] of fields) {
    const m = /^ \(func \$(\S+) ((?:\(param \$\d+ i32\) ?)+)\(result i32\)$/.exec(lines[s]);
    if (m && DROPPED.includes(m[1])) targets.set("$" + m[1], m[2].trim().split(/ (?=\()/).length);
  }
  const used = new Set();
  let inWarm = false;
  const rewrite = (n) => {
    if (!Array.isArray(n)) return n;
    const call = n.length === 2 && n[0] === "drop" && Array.isArray(n[1]) && n[1][0] === "call" ? n[1][1] : "";
    // a @cold copy is called only where the profile saw no call of it: from warm functions too
    if (targets.has(call) && n[1].length === 2 + targets.get(call) && (!inWarm || call.endsWith("@cold"))) {
      used.add(n[1][1]);
      return ["call", n[1][1] + "@void", ...n[1].slice(2).map(rewrite)];
    }
    return n.map(rewrite);
  };
  const out = [];
  let at = 0;
  for (const [s, e] of fields) {
    const m = /^ \(func \$(\S+)/.exec(lines[s]);
    if (!m) continue;
    inWarm = warm.has(m[1]);
    const src = lines.slice(s, e).join("\n");
    if (![...targets.keys()].some((t) => src.includes("(call " + t + "\n") || src.includes("(call " + t + " "))) continue;
    out.push(...lines.slice(at, s), " " + sexprText(rewrite(sexprTree(sexprTokens(src)))));
    at = e;
  }
  if (used.size === 0) return null;
  const helpers = [...used].sort().map((t) => {
    const k = targets.get(t);
    const params = Array.from({ length: k }, (_, i) => `(param $${i} i32)`).join(" ");
    const args = Array.from({ length: k }, (_, i) => `(local.get $${i})`).join(" ");
    return ` (func ${t}@void ${params} (drop (call ${t} ${args})))`;
  });
  out.push(...lines.slice(at, last), ...helpers, ...lines.slice(last));
  return out.join("\n");
}

// Step 4: `a + b + c + d` compiles to nested calls of String#concat, one call and one fresh
// string per `+` (about 2,300 calls in the release module, in chains of 2 to 25 pieces, most of
// them in diagnostic messages). Each chain of 3 or more pieces becomes one call of a helper that
// takes CONCAT_ARITIES pieces (longer chains: the helpers nested, the first piece the helper
// before), allocates the result once and copies the pieces into it: the same string, about
// 2.2 KB less code. The pieces are evaluated in the same order; only the intermediate strings
// (garbage in the arena) are no longer made. Hot and cold chains alike.
const CONCAT = new Set(["$~lib/string/String#concat", "$~lib/string/String.__concat", "$~lib/string/String.__concat@cold"]);
const CONCAT_ARITIES = [3, 4, 5];

function sexprTokens(s) {
  const out = [];
  let i = 0;
  const skipString = (j) => {
    j++;
    while (s[j] !== '"') j += s[j] === "\\" ? 2 : 1;
    return j + 1;
  };
  while (i < s.length) {
    const c = s[i];
    if (c === "(" || c === ")") {
      out.push(c);
      i++;
    } else if (c === " " || c === "\n" || c === "\t") {
      i++;
    } else {
      let j = i;
      while (j < s.length && !" \n\t()".includes(s[j])) j = s[j] === '"' ? skipString(j) : j + 1;
      out.push(s.slice(i, j));
      i = j;
    }
  }
  return out;
}

function sexprTree(tokens) {
  let k = 0;
  const node = () => {
    k++;
    const items = [];
    while (tokens[k] !== ")") items.push(tokens[k] === "(" ? node() : tokens[k++]);
    k++;
    return items;
  };
  const tree = node();
  if (k !== tokens.length) throw new Error("joinConcats: unexpected text after a function");
  return tree;
}

const sexprText = (n) => (Array.isArray(n) ? "(" + n.map(sexprText).join(" ") + ")" : n);
const isConcat = (n) => Array.isArray(n) && n.length === 4 && n[0] === "call" && CONCAT.has(n[1]);

/** The WebAssembly text of a helper that concatenates `k` strings: String#concat's steps (the
 *  sizes from the headers, `empty` for an empty result, one __new, one copy per piece). */
function concatHelper(k, empty) {
  const p = (i) => `(local.get $${i})`;
  const size = (i) => `(i32.and (i32.load offset=16 (i32.sub ${p(i)} (i32.const 20))) (i32.const -2))`;
  const at = k, out = k + 1, len = k + 2;
  let total = size(0);
  for (let i = 1; i < k; i++) total = `(i32.add ${total} ${size(i)})`;
  let body = `(local.set $${at} ${total}) (if (i32.eqz (local.get $${at})) (then (return (i32.const ${empty}))))` +
    ` (local.set $${out} (local.tee $${at} (call $~lib/rt/stub/__new (local.get $${at}) (i32.const 2))))`;
  for (let i = 0; i < k; i++) {
    body += ` (memory.copy (local.get $${at}) ${p(i)} (local.tee $${len} ${size(i)}))`;
    if (i < k - 1) body += ` (local.set $${at} (i32.add (local.get $${at}) (local.get $${len})))`;
  }
  const params = Array.from({ length: k }, (_, i) => `(param $${i} i32)`).join(" ");
  return `(func $~tile/concat${k} ${params} (result i32) (local $${at} i32) (local $${out} i32) (local $${len} i32) ${body} (local.get $${out}))`;
}

/** The module's text with each chain of 3 or more concatenated pieces replaced by helper calls,
 *  and the helpers' names; null when the module has no such chain or no String#concat. */
export function joinConcats(text) {
  const lines = text.split("\n");
  let last = lines.length - 1;
  while (!lines[last].startsWith(")")) last--;
  const fields = []; // [start, end): the lines of one module field
  for (let i = 0; i < last; i++) {
    if (!lines[i].startsWith(" (")) continue;
    if (fields.length > 0) fields[fields.length - 1][1] = i;
    fields.push([i, last]);
  }
  const concat = fields.find(([s]) => lines[s].startsWith(" (func $~lib/string/String#concat "));
  if (!concat || !/^ \(func \$~lib\/rt\/stub\/__new /m.test(text)) return null;
  const empty = /\(return\s*\(i32\.const (\d+)\)/.exec(lines.slice(concat[0], concat[1]).join("\n"));
  if (!empty) return null;
  const used = new Set();
  const maxK = Math.max(...CONCAT_ARITIES);
  const pieces = (n, acc) => {
    if (isConcat(n)) {
      pieces(n[2], acc);
      pieces(n[3], acc);
    } else acc.push(rewrite(n));
    return acc;
  };
  const rewrite = (n) => {
    if (!Array.isArray(n)) return n;
    if (!isConcat(n) || !(isConcat(n[2]) || isConcat(n[3]))) return n.map(rewrite);
    let ps = pieces(n, []);
    while (ps.length > 1) {
      let k = Math.min(ps.length, maxK);
      while (k > 2 && !CONCAT_ARITIES.includes(k)) k--;
      const name = k === 2 ? "$~lib/string/String#concat" : "$~tile/concat" + k;
      if (k > 2) used.add(k);
      ps = [["call", name, ...ps.slice(0, k)], ...ps.slice(k)];
    }
    return ps[0];
  };
  const out = [];
  let at = 0;
  for (const [s, e] of fields) {
    if (!lines[s].startsWith(" (func ")) continue;
    const src = lines.slice(s, e).join("\n");
    if (!src.includes("concat")) continue;
    out.push(...lines.slice(at, s), " " + sexprText(rewrite(sexprTree(sexprTokens(src)))));
    at = e;
  }
  if (used.size === 0) return null;
  const ks = [...used].sort((a, b) => a - b);
  out.push(...lines.slice(at, last), ...ks.map((k) => " " + concatHelper(k, empty[1])), ...lines.slice(last));
  return { text: out.join("\n"), helpers: ks.map((k) => "~tile/concat" + k) };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // --profile-build: the pipeline without flexible inlining, names kept (the build that
  // scripts/wasm-hot-callers.mjs's profile is taken on)
  const profileBuild = process.argv.includes("--profile-build");
  const keepNames = process.argv.includes("--names");
  for (const file of process.argv.slice(2).filter((a) => a !== "--profile-build" && a !== "--names")) {
    const before = fs.readFileSync(file);
    if (profileBuild) {
      const m = optimize(new Uint8Array(before), 0, []);
      const bytes = withNames(m);
      m.dispose();
      fs.writeFileSync(file, bytes);
      console.log(`${file}: optimized without flexible inlining, names kept, ${before.length} -> ${bytes.length} bytes`);
      continue;
    }
    const r = optimizeWasm(before, HOT, HOT_CALLERS, WARM, keepNames);
    for (const name of r.missing) console.warn(`${file}: warning: hot function ${name} not found (scripts/opt-wasm.mjs HOT is out of date)`);
    fs.writeFileSync(file, r.bytes);
    console.log(`${file}: optimized, ${before.length} -> ${r.bytes.length} bytes`);
  }
}
