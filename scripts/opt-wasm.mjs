// Optimizes the release WebAssembly build with binaryen (part of `npm run build:wasm`; see
// ARCHITECTURE.md, "Size of the WebAssembly build").
//
//   asc core/index-wasm.ts --target release --transform ./scripts/opt-wasm.mjs
//                                    (asconfig: no binaryen optimization, names kept; the
//                                     transform is this file's default export, below)
//   node scripts/opt-wasm.mjs <module.wasm>       optimizes the module in place, names dropped
//
// What `asc -O3` (optimizeLevel 3, shrinkLevel 0) does, with one difference: binaryen's
// "flexible" inlining (a function of up to 70 units, without calls, copied into every caller:
// about 35 KB of the module) is kept only for the functions in HOT below. Every other function is
// still inlined where the size-neutral rules do it (up to 12 units, or a single caller), exactly
// where the same pipeline without flexible inlining inlines it.
//
// The transform: asc derives two things from its optimization levels, the levels binaryen runs at
// and the compile-time constants ASC_OPTIMIZE_LEVEL / ASC_SHRINK_LEVEL the standard library is
// compiled under (and the static data's start address). The release target asks asc for level 0
// (no binaryen passes) while this transform sets those constants to the -O3 values, so the
// standard library and memory layout are -O3's and the passes are run here.
import fs from "node:fs";
import { pathToFileURL } from "node:url";
import binaryen from "binaryen";

/** The AssemblyScript transform (asconfig "transform"): compile as for -O3, shrink level 0. */
export default class OptimizeLevelHints {
  afterParse() {
    this.program.options.optimizeLevelHint = 3;
    this.program.options.shrinkLevelHint = 0;
  }
}

// The functions that keep flexible inlining: the 50 functions with the most self time (each at
// least 0.3% of the WebAssembly time) in a CPU profile of `npm run bench:core` (plan and emit of
// every built-in case, option variant and fuzz document) run on the build without flexible
// inlining (node --cpu-prof). Without flexible inlining emit is about 1.7 times slower; with it
// for these 50 only, emit was as fast as with it for all in alternated runs, and the code is
// 7.6 KB smaller. A name that no longer exists only costs speed: the script warns about it.
const HOT = [
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
function optimize(bytes, flexible, noInline) {
  const m = binaryen.readBinary(bytes);
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
  binaryen.setAlwaysInlineMaxSize(12);
  binaryen.setFlexibleInlineMaxSize(flexible);
  binaryen.setOneCallerInlineMaxSize(200);
  binaryen.setAllowInliningFunctionsWithLoops(true);
  binaryen.setPassArgument("partial-inlining-ifs", "4");
  m.runPasses(ascPasses());
  return m;
}

/** Returns the optimized module's bytes and the names in `hot` the module does not have. */
export function optimizeWasm(input, hotNames = HOT) {
  const raw = new Uint8Array(input);
  // 1. without flexible inlining: the functions that survive are the ones the size-neutral rules
  //    keep as functions
  const lean = optimize(raw, 0, []);
  const survivors = functionNames(lean);
  lean.dispose();
  // 2. the same pipeline with flexible inlining, which the survivors outside HOT may not take
  const unoptimized = binaryen.readBinary(raw);
  const all = new Set(functionNames(unoptimized));
  unoptimized.dispose();
  const missing = hotNames.filter((name) => !all.has(name));
  const hot = new Set(hotNames);
  const m = optimize(raw, 70, survivors.filter((name) => !hot.has(name)));
  try {
    if (!m.validate()) throw new Error("the optimized module does not validate");
    return { bytes: m.emitBinary(), missing };
  } finally {
    m.dispose();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const file of process.argv.slice(2)) {
    const before = fs.readFileSync(file);
    const r = optimizeWasm(before);
    for (const name of r.missing) console.warn(`${file}: warning: hot function ${name} not found (scripts/opt-wasm.mjs HOT is out of date)`);
    fs.writeFileSync(file, r.bytes);
    console.log(`${file}: optimized, ${before.length} -> ${r.bytes.length} bytes`);
  }
}
