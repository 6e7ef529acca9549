// node bench/tools/threadgroup-forms.mjs [--rounds N] [--runtime host|metal]
//
// Does declaring threadgroup memory in the kernel body cost anything against passing it as
// [[threadgroup(K)]] arguments? For every cooperative kernel of the built-in cases and the
// validation matrix it takes the emitted MSL (partials declared in the body) and derives the
// argument form from it by moving each `threadgroup T tgK[N];` into the signature as
// `threadgroup T* tgK [[threadgroup(K)]]` with N*4 bytes bound at dispatch. Both are compiled
// and dispatched on the same buffers, alternately (A-first and B-first rounds in turn); it prints
// the median time of one dispatch of each and their ratio. Host times are CPU times of the MSL
// run as C++, not GPU times. A measurement, not a test.
import { loadEngine, openRuntime, loadMatrix, builtinEntries } from "../../dist/tile-shell.mjs";

const arg = (name, dflt) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : dflt);
const rounds = Number(arg("--rounds", "9"));
const rt = openRuntime(arg("--runtime", "host"));
const engine = await loadEngine("wasm");

/** The argument form of a kernel whose threadgroup arrays are declared in its body. */
export function argumentForm(msl) {
  const decl = /^  threadgroup (\w+) (tg\d+)\[(\d+)\];\n/gm;
  const found = [...msl.matchAll(decl)];
  let out = msl.replace(decl, "").replace(/^  \/\/ threadgroup memory, per reduce.*\n/m, "");
  const args = found.map((m, k) => `    threadgroup ${m[1]}* ${m[2]} [[threadgroup(${k})]],\n`).join("");
  const at = out.indexOf("\n", out.lastIndexOf("[[buffer(")) + 1;
  out = out.slice(0, at) + args + out.slice(at);
  return { msl: out, bytes: found.map((m) => Number(m[3]) * 4) };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const time = (pipe, bufs, tg, plan) => {
  rt.dispatch(pipe, bufs, tg, [plan.dispatch.groups, 1, 1], [plan.dispatch.threads, 1, 1], 1);
  const t = rt.lastTimes();
  return t.end - t.start;
};

const seen = new Set();
const rows = [];
for (const e of [...builtinEntries(engine), ...loadMatrix(engine, false)]) {
  const r = engine.call({ command: "emit", document: e.text, options: e.options });
  if (!r.ok || r.plan.realization !== "cooperative-reduction" || seen.has(r.msl)) continue;
  seen.add(r.msl);
  const doc = JSON.parse(e.text);
  const old = argumentForm(r.msl);
  const body = { pipe: rt.pipeline(rt.compile(r.msl), r.plan.kernel), tg: [] };
  const args = { pipe: rt.pipeline(rt.compile(old.msl), r.plan.kernel), tg: old.bytes };
  const bufs = r.plan.bindings.map((b) => {
    const buf = rt.buffer(b.bytes);
    const p = doc.params[b.index];
    const n = b.bytes / 4;
    rt.write(buf, p.dtype === "i32" ? new Int32Array(n) : Float32Array.from({ length: n }, (_, i) => Math.sin(i)));
    return buf;
  });
  time(body.pipe, bufs, body.tg, r.plan); // warm-up
  time(args.pipe, bufs, args.tg, r.plan);
  const a = [], b = [];
  for (let i = 0; i < rounds; i++) {
    if (i % 2 === 0) { a.push(time(body.pipe, bufs, body.tg, r.plan)); b.push(time(args.pipe, bufs, args.tg, r.plan)); }
    else { b.push(time(args.pipe, bufs, args.tg, r.plan)); a.push(time(body.pipe, bufs, body.tg, r.plan)); }
  }
  const m = r.plan.mapping;
  rows.push([e.id, `P${m.P} S${m.S} T${m.T} V${m.V}`, (median(a) * 1e3).toFixed(3), (median(b) * 1e3).toFixed(3), (median(a) / median(b)).toFixed(3)]);
  for (const buf of bufs) rt.freeBuffer(buf);
}
console.log(`runtime: ${rt.kind} (${rt.deviceName}); ${rounds} alternating rounds; median ms per dispatch`);
console.log(["kernel", "widths", "in body", "arguments", "ratio"].join("\t"));
for (const row of rows) console.log(row.join("\t"));
const ratios = rows.map((r) => Number(r[4]));
console.log(`kernels: ${rows.length}; median ratio (in body / arguments) ${median(ratios).toFixed(3)}, min ${Math.min(...ratios).toFixed(3)}, max ${Math.max(...ratios).toFixed(3)}`);
rt.close();
