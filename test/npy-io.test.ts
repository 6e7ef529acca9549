// tile run --dump DIR (.npy files and a manifest) and --input NAME=FILE.npy: the dump is read
// back with a .npy reader written here, independently of shell-node/src/npy.ts (and with NumPy
// where python3 has it), and a run fed its own dump through --input reproduces it bit for bit.
import { describe, expect, it } from "vitest";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { ROOT } from "./helpers/files";

const CLI = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const tile = (args: string[]) => spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", cwd: ROOT });
const tmp = (tag: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `tile-${tag}-`));

/** A minimal .npy reader (version 1.0 header as NumPy's format.py describes it). */
function readNpy(file: string): { descr: string; shape: number[]; bytes: Uint8Array } {
  const b = fs.readFileSync(file);
  expect([...b.subarray(0, 6)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]); // \x93NUMPY
  expect(b[6]).toBe(1);
  const hlen = b[8] + 256 * b[9];
  expect((10 + hlen) % 64).toBe(0); // data aligned to 64 bytes
  const header = b.subarray(10, 10 + hlen).toString("latin1");
  expect(header.endsWith("\n")).toBe(true);
  const descr = header.split("'descr': '")[1].split("'")[0];
  expect(header).toContain("'fortran_order': False");
  const shape = header.split("'shape': (")[1].split(")")[0].split(",").map((s) => s.trim()).filter((s) => s !== "").map(Number);
  return { descr, shape, bytes: Uint8Array.from(b.subarray(10 + hlen)) };
}
/** A version 1.0 .npy file of `data` (C order), the way NumPy writes one. */
function npyFile(descr: string, shape: number[], data: Buffer): Buffer {
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${shape.join(", ")}${shape.length === 1 ? "," : ""}), }`;
  header += " ".repeat(64 - ((10 + header.length + 1) % 64)) + "\n";
  const head = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
  return Buffer.concat([head, Buffer.from(header, "latin1"), data]);
}
const f32s = (a: { bytes: Uint8Array }): Float32Array => new Float32Array(a.bytes.buffer);
const u32s = (a: { bytes: Uint8Array }): Uint32Array => new Uint32Array(a.bytes.buffer);

const R = 3, C = 40, EPS = Math.fround(1e-5);
const SIZES = ["--size", `R=${R}`, "--size", `C=${C}`];

describe("tile run --dump", () => {
  const dir = tmp("dump");
  const r = tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--dump", dir]);

  it("writes every buffer's initial and final contents as .npy, and a manifest of roles", () => {
    expect(r.status, r.stderr).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    expect([m.inputs, m.outputs, m.updatedInPlace]).toEqual([["X", "G", "B"], ["Y"], []]);
    expect(m.buffers.map((b: any) => [b.name, b.role, b.initialFrom])).toEqual([
      ["X", "input", "seed 1"], ["G", "input", "seed 1"], ["B", "input", "seed 1"], ["Y", "output", "sentinels"]]);
    for (const b of m.buffers) {
      for (const which of ["initial", "final"]) {
        const a = readNpy(path.join(dir, b[which]));
        expect(a.descr).toBe("<f4");
        expect(a.shape).toEqual(b.name === "X" || b.name === "Y" ? [R, C] : [C]);
      }
    }
    // inputs come back unchanged; an output starts as sentinels: quiet NaNs with a nonzero payload
    for (const n of ["X", "G", "B"]) expect(readNpy(path.join(dir, `${n}.final.npy`)).bytes).toEqual(readNpy(path.join(dir, `${n}.initial.npy`)).bytes);
    const y0 = u32s(readNpy(path.join(dir, "Y.initial.npy")));
    for (const b of y0) expect([(b & 0x7fc00000) === 0x7fc00000, (b & 0x3fffff) !== 0]).toEqual([true, true]);
  });

  it("holds the numbers of the run: Y is the affine LayerNorm of the dumped X, G, B", () => {
    const X = f32s(readNpy(path.join(dir, "X.initial.npy")));
    const G = f32s(readNpy(path.join(dir, "G.initial.npy")));
    const B = f32s(readNpy(path.join(dir, "B.initial.npy")));
    const Y = f32s(readNpy(path.join(dir, "Y.final.npy")));
    for (let row = 0; row < R; row++) {
      let s = 0;
      for (let c = 0; c < C; c++) s += X[row * C + c];
      const mean = s / C;
      let q = 0;
      for (let c = 0; c < C; c++) q += (X[row * C + c] - mean) ** 2;
      const inv = 1 / Math.sqrt(q / C + EPS);
      for (let c = 0; c < C; c++) {
        const ref = (X[row * C + c] - mean) * inv * G[c] + B[c];
        expect(Math.abs(Y[row * C + c] - ref)).toBeLessThan(2e-6 + 2e-5 * Math.abs(ref));
      }
    }
  });

  it("a folder used again holds only the later run: the earlier manifest's other buffers are removed", () => {
    const again = tmp("dump-again");
    expect(tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--dump", again]).status).toBe(0);
    fs.writeFileSync(path.join(again, "notes.txt"), "mine");
    const r2 = tile(["run", "cases/softmax.json", ...SIZES, "--runtime", "host", "--dump", again]);
    expect(r2.status, r2.stderr).toBe(0);
    // softmax has X and Y: G and B of the LayerNorm run are gone, a file of the user's stays
    expect(fs.readdirSync(again).sort()).toEqual(["X.final.npy", "X.initial.npy", "Y.final.npy", "Y.initial.npy", "document.json", "kernel.metal", "manifest.json", "notes.txt"]);
    expect(JSON.parse(fs.readFileSync(path.join(again, "manifest.json"), "utf8")).document).toBe("softmax");
  });

  it("a buffer's name is no path: ../X, a/b and X beside x stay in the folder as files of their own (red team, session 27)", () => {
    const parent = tmp("dump-names");
    const dir = path.join(parent, "d");
    const doc = {
      tile: 1, name: "names", attrs: { noalias: true }, sizes: { N: 10 },
      params: [{ name: "../X", dtype: "f32", shape: ["N"] }, { name: "a/b", dtype: "f32", shape: ["N"] }, { name: "x", dtype: "f32", shape: ["N"] }, { name: "X", dtype: "f32", shape: ["N"] }],
      body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [
        { store: "a/b", at: ["i"], value: ["load", "../X", ["i"]] },
        { store: "X", at: ["i"], value: ["load", "x", ["i"]] },
      ] }],
    };
    const file = path.join(parent, "names.json");
    fs.writeFileSync(file, JSON.stringify(doc));
    const r = tile(["run", file, "--runtime", "host", "--dump", dir]);
    expect(r.status, r.stderr).toBe(0);
    expect(fs.readdirSync(parent).sort()).toEqual(["d", "names.json"]);
    const stems = ["%2E%2E%2FX", "a%2Fb", "x", "X~2"];
    expect(fs.readdirSync(dir).sort()).toEqual([...stems.flatMap((s) => [`${s}.final.npy`, `${s}.initial.npy`]), "document.json", "kernel.metal", "manifest.json"].sort());
    const m = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
    expect(m.buffers.map((b: any) => [b.name, b.initial, b.final])).toEqual(doc.params.map((p, k) => [p.name, `${stems[k]}.initial.npy`, `${stems[k]}.final.npy`]));
    // the copy through the odd names: a/b holds ../X, X holds x
    expect(f32s(readNpy(path.join(dir, "a%2Fb.final.npy")))).toEqual(f32s(readNpy(path.join(dir, "%2E%2E%2FX.initial.npy"))));
    expect(f32s(readNpy(path.join(dir, "X~2.final.npy")))).toEqual(f32s(readNpy(path.join(dir, "x.initial.npy"))));
    // used again by another run: the earlier manifest's files of other buffers go, in the folder only
    const r2 = tile(["run", "cases/softmax.json", ...SIZES, "--runtime", "host", "--dump", dir]);
    expect(r2.status, r2.stderr).toBe(0);
    expect(fs.readdirSync(dir).sort()).toEqual(["X.final.npy", "X.initial.npy", "Y.final.npy", "Y.initial.npy", "document.json", "kernel.metal", "manifest.json"]);
  });

  const numpy = spawnSync("python3", ["-c", "import numpy"]).status === 0;
  it.skipIf(!numpy)("NumPy reads the dump to the same values (python3 + numpy)", () => {
    const py = `import numpy, json, sys\nd = sys.argv[1]\nout = {}\nfor n in ['X', 'Y']:\n  a = numpy.load(d + '/' + n + '.final.npy')\n  out[n] = [str(a.dtype), list(a.shape), a.view(numpy.uint32).ravel().tolist()]\nprint(json.dumps(out))`;
    const p = spawnSync("python3", ["-c", py, dir], { encoding: "utf8" });
    expect(p.status, p.stderr).toBe(0);
    const got = JSON.parse(p.stdout);
    for (const n of ["X", "Y"]) {
      expect(got[n][0]).toBe("float32");
      expect(got[n][1]).toEqual([R, C]);
      expect(got[n][2]).toEqual([...u32s(readNpy(path.join(dir, `${n}.final.npy`)))]);
    }
  });
});

describe("tile run --input", () => {
  it("a run fed its own dump reproduces it bit for bit, whatever the seed", () => {
    const first = tmp("rt1");
    const again = tmp("rt2");
    const other = tmp("rt3");
    expect(tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--seed", "5", "--dump", first]).status).toBe(0);
    const inputs = ["X", "G", "B"].flatMap((n) => ["--input", `${n}=${path.join(first, `${n}.initial.npy`)}`]);
    const r = tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--seed", "99", ...inputs, "--dump", again]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain("verdict: pass");
    for (const n of ["X", "G", "B", "Y"]) expect(readNpy(path.join(again, `${n}.final.npy`)).bytes, n).toEqual(readNpy(path.join(first, `${n}.final.npy`)).bytes);
    const m = JSON.parse(fs.readFileSync(path.join(again, "manifest.json"), "utf8"));
    expect(m.buffers[0].initialFrom).toBe(path.join(first, "X.initial.npy"));
    // control: seed 99 without the files gives other numbers
    expect(tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--seed", "99", "--dump", other]).status).toBe(0);
    expect(readNpy(path.join(other, "Y.final.npy")).bytes).not.toEqual(readNpy(path.join(first, "Y.final.npy")).bytes);
  });

  it("a buffer updated in place starts from the file and is dispatched three times", () => {
    const dir = tmp("inplace");
    const doc = path.join(dir, "double.json");
    fs.writeFileSync(doc, JSON.stringify({ tile: 1, name: "double", attrs: { noalias: true }, sizes: { N: 5 },
      params: [{ name: "Y", dtype: "f32", shape: ["N"] }],
      body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value: ["mul", ["load", "Y", ["i"]], ["f32", 2]] }] }] }));
    // the input file: written by hand, the way NumPy writes (1, 2, ...) as <f4, shape (5,)
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (5,), }";
    header += " ".repeat(64 - ((10 + header.length + 1) % 64)) + "\n";
    const head = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    fs.writeFileSync(path.join(dir, "y.npy"), Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(new Float32Array([1, -2, 0.5, 3, 1e-3]).buffer)]));
    const out = path.join(dir, "out");
    const r = tile(["run", doc, "--runtime", "host", "--input", `Y=${path.join(dir, "y.npy")}`, "--dump", out]);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const m = JSON.parse(fs.readFileSync(path.join(out, "manifest.json"), "utf8"));
    expect([m.inputs, m.outputs, m.updatedInPlace, m.dispatches]).toEqual([[], [], ["Y"], 3]);
    expect([...f32s(readNpy(path.join(out, "Y.initial.npy")))]).toEqual([...new Float32Array([1, -2, 0.5, 3, 1e-3])]);
    expect([...f32s(readNpy(path.join(out, "Y.final.npy")))]).toEqual([...new Float32Array([8, -16, 4, 24, 8e-3])]);
  });

  it("user index data out of bounds is a failed run naming the access (exit 1), not a crash", () => {
    const dir = tmp("gather");
    const doc = path.join(dir, "gather.json");
    fs.writeFileSync(doc, JSON.stringify({ tile: 1, name: "gather", attrs: { noalias: true }, sizes: { N: 4 },
      params: [{ name: "I", dtype: "i32", shape: ["N"] }, { name: "X", dtype: "f32", shape: ["N"] }, { name: "Y", dtype: "f32", shape: ["N"] }],
      body: [{ for: "i", in: [0, "N"], kind: "parallel", body: [{ store: "Y", at: ["i"], value: ["load", "X", [["load", "I", ["i"]]]] }] }] }));
    let header = "{'descr': '<i4', 'fortran_order': False, 'shape': (4,), }";
    header += " ".repeat(64 - ((10 + header.length + 1) % 64)) + "\n";
    const head = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    fs.writeFileSync(path.join(dir, "i.npy"), Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(new Int32Array([3, 2, 9, 0]).buffer)]));
    const r = tile(["run", doc, "--runtime", "host", "--input", `I=${path.join(dir, "i.npy")}`]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/error: oracle: .*outside \[0, 4\)/);
    expect(r.stdout + r.stderr).not.toMatch(/\n\s+at /);
  });

  it("a file that does not fit the buffer is a usage error (exit 2) saying why", () => {
    const dir = tmp("bad");
    const dump = tmp("bad-dump");
    expect(tile(["run", "cases/layernorm_affine.json", ...SIZES, "--runtime", "host", "--dump", dump]).status).toBe(0);
    const x = path.join(dump, "X.initial.npy");
    const i32 = path.join(dir, "i.npy");
    const raw = fs.readFileSync(x);
    fs.writeFileSync(i32, Buffer.from(raw.toString("latin1").replace("'<f4'", "'<i4'"), "latin1"));
    const cases: Array<[string[], RegExp]> = [
      [["--input", `X=${x}`], /X has shape \(37, 1537\)/], // default sizes: the file is 3 x 40
      [[...SIZES, "--input", `X=${i32}`], /holds <i4 elements; X is f32, which needs <f4/],
      [[...SIZES, "--input", `Y=${x}`], /only writes Y/],
      [[...SIZES, "--input", `Q=${x}`], /no buffer "Q"/],
      [[...SIZES, "--input", "X"], /expects NAME=FILE\.npy/],
      [[...SIZES, "--input", `X=${x}`, "--input", `X=${x}`], /given twice/],
      [[...SIZES, "--input", `X=${path.join(ROOT, "cases", "sum.json")}`], /not a NumPy \.npy file/],
    ];
    for (const [args, msg] of cases) {
      const r = tile(["run", "cases/layernorm_affine.json", "--runtime", "host", ...args]);
      expect(r.status, args.join(" ")).toBe(2);
      expect(r.stderr, args.join(" ")).toMatch(msg);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });
});

describe("16-bit buffers in .npy", () => {
  const S = ["--size", "R=3", "--size", "C=40", "--runtime", "host"];
  it("f16 dumps as <f2 and bf16 as <f4 holding bf16 values; both round-trip through --input", () => {
    for (const [name, descr] of [["softmax_f16", "<f2"], ["softmax_bf16", "<f4"]]) {
      const first = tmp("h1");
      const again = tmp("h2");
      expect(tile(["run", `cases/${name}.json`, ...S, "--dump", first]).status).toBe(0);
      const x = readNpy(path.join(first, "X.initial.npy"));
      expect([x.descr, x.shape]).toEqual([descr, [R, C]]);
      if (descr === "<f4") for (const b of u32s(x)) expect(b & 0xffff).toBe(0);
      const r = tile(["run", `cases/${name}.json`, ...S, "--seed", "77", "--input", `X=${path.join(first, "X.initial.npy")}`, "--dump", again]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(readNpy(path.join(again, "Y.final.npy")).bytes).toEqual(readNpy(path.join(first, "Y.final.npy")).bytes);
    }
  });
  it("a NaN's sign and payload reach the kernel as the file holds them (f32, f16, bf16); a NaN bf16 cannot hold is refused", () => {
    // Y = X * 2 over [R, C] in each dtype, fed NaNs with payloads (red-team finding: the values were
    // held as FP64, so every NaN became the one quiet NaN and the dump no longer matched the file)
    const dir = tmp("nanbits");
    const cases: [string, string, number[]][] = [
      ["f32", "<f4", [0x7fc00001, 0xffc12345, 0x7f800001, 0x3f800000, 0xff810000, 0x40000000]],
      ["f16", "<f2", [0x7e01, 0xfc01, 0xfe00, 0x3c00, 0x7c01, 0x4000]],
      ["bf16", "<f4", [0xffc00000, 0x7fc10000, 0xff810000, 0x3f800000, 0x7f810000, 0x40000000]],
    ];
    for (const [dtype, descr, words] of cases) {
      const doc = path.join(dir, `scale_${dtype}.json`);
      fs.writeFileSync(doc, JSON.stringify({ tile: 1, name: `scale_${dtype}`, attrs: { noalias: true }, sizes: { R: 2, C: 3 },
        params: [{ name: "X", dtype, shape: ["R", "C"] }, { name: "Y", dtype, shape: ["R", "C"] }],
        body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ for: "c", in: [0, "C"], kind: "parallel", body: [
          { store: "Y", at: ["r", "c"], value: ["mul", ["load", "X", ["r", "c"]], ["f32", 2]] }] }] }] }));
      const data = descr === "<f2" ? Buffer.from(Uint16Array.from(words).buffer) : Buffer.from(Uint32Array.from(words).buffer);
      const file = path.join(dir, `x_${dtype}.npy`);
      fs.writeFileSync(file, npyFile(descr, [2, 3], data));
      const out = path.join(dir, `out_${dtype}`);
      const r = tile(["run", doc, "--runtime", "host", "--input", `X=${file}`, "--dump", out]);
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(Buffer.from(readNpy(path.join(out, "X.initial.npy")).bytes), dtype).toEqual(data);
    }
    // 0x7fc00001 is a float32 NaN whose payload has bits bf16 drops: not a bf16 value
    const bad = path.join(dir, "x_bad.npy");
    fs.writeFileSync(bad, npyFile("<f4", [2, 3], Buffer.from(Uint32Array.from([0x3f800000, 0x7fc00001, 0, 0, 0, 0]).buffer)));
    const r = tile(["run", path.join(dir, "scale_bf16.json"), "--runtime", "host", "--input", `X=${bad}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/element 1 \(a NaN with bits 0x7fc00001.*is not a bf16 value/);
  });
  it("a header that gives a key twice is refused (NumPy would take the last value, a first-match reader the first)", () => {
    const dir = tmp("dupkey");
    const body = Buffer.from(new Float32Array(6).buffer);
    let header = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'descr': '<i4', }";
    header += " ".repeat(64 - ((10 + header.length + 1) % 64)) + "\n";
    const head = Buffer.from([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, header.length & 255, header.length >> 8]);
    fs.writeFileSync(path.join(dir, "x.npy"), Buffer.concat([head, Buffer.from(header, "latin1"), body]));
    const r = tile(["run", "cases/sum.json", "--size", "R=2", "--size", "C=3", "--runtime", "host", "--input", `X=${path.join(dir, "x.npy")}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("gives 'descr' twice");
  });
  it("a float32 file with values that are not bf16 is refused for a bf16 buffer (exit 2)", () => {
    const dump = tmp("bfdump");
    expect(tile(["run", "cases/softmax.json", ...S, "--dump", dump]).status).toBe(0); // f32 values
    const r = tile(["run", "cases/softmax_bf16.json", ...S, "--input", `X=${path.join(dump, "X.initial.npy")}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/is not a bf16 value/);
  });
});
