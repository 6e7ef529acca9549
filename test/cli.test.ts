// The `tile` command line, run as a user runs it: `node shell-node/bin/tile.mjs ...` in a child
// process (needs the bundles in dist/: npm run build). Exit codes: 0 ok, 1 understood but
// failed, 2 bad usage or invalid document.
import { describe, expect, it, beforeAll, afterAll } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { ROOT, VALIDATE_DIR, caseFiles } from "./helpers/files";
import { firstInvalidUtf8 } from "../shell-node/src/io";
import { encodeNpy } from "../shell-node/src/npy";
import { Rng } from "./helpers/random";

const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function tile(...args: string[]): Run {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** No JavaScript stack trace leaks to the user. */
function noStack(r: Run): void {
  expect(r.stdout + r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stderr).not.toContain("internal error");
}

let tmp = "";
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-cli-"));
});
afterAll(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

const sum = path.join("cases", "sum.json");
const fixture = (name: string): string => path.relative(ROOT, path.join(VALIDATE_DIR, name + ".json"));

describe("exit codes", () => {
  it("0 for a valid case", () => {
    const r = tile("validate", sum);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${sum}: ok (sum)\n`);
    noStack(r);
  });

  it("tile check is validate by another name (a user corpus reached for it)", () => {
    const r = tile("check", sum);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${sum}: ok (sum)\n`);
    expect(tile("check", fixture("TIR023-out-of-bounds")).code).toBe(2);
  });

  it("2 for an invalid document, with the diagnostic printed", () => {
    const r = tile("validate", fixture("TIR023-out-of-bounds"));
    expect(r.code).toBe(2);
    // file:line:col of the node the pointer names, then the source line with a caret under it
    const text = fs.readFileSync(fixture("TIR023-out-of-bounds"), "utf8").split("\n");
    const m = new RegExp(`^${fixture("TIR023-out-of-bounds").replace(/[.]/g, "\\.")}:(\\d+):(\\d+): error TIR023 \\(out-of-bounds\\): `).exec(r.stdout);
    expect(m).not.toBeNull();
    const [line, col] = [Number(m![1]), Number(m![2])];
    const lines = r.stdout.split("\n");
    expect(lines[1]).toBe(`  ${line} | ${text[line - 1]}`);
    expect(lines[2]).toBe(`  ${" ".repeat(String(line).length)} | ${" ".repeat(col - 1)}^`);
    expect(text[line - 1][col - 1]).toBe("[");
    noStack(r);
  });

  it("2 for malformed JSON, printed as file:line:column", () => {
    const r = tile("validate", fixture("TIR001-trailing-comma"));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(new RegExp(`^${fixture("TIR001-trailing-comma").replace(/[.]/g, "\\.")}:9:3: error TIR001 \\(json-syntax\\): `));
    noStack(r);
  });

  it("2 for a document over the size limit (TIR002)", () => {
    const big = path.join(tmp, "big.json");
    const text = fs.readFileSync(path.join(VALIDATE_DIR, "ok-rowsum.json"), "utf8");
    fs.writeFileSync(big, text + " ".repeat(4194305 - text.length));
    const r = tile("validate", big);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("error TIR002 (document-too-large)");
    noStack(r);
  });

  it("2 for a missing file", () => {
    const r = tile("validate", "no/such/file.json");
    expect(r.code).toBe(2);
    // validate reports an unreadable file as that file's diagnostic (stdout, as its others), so a
    // batch goes on with the next file; the other commands say it on stderr
    expect(r.stdout).toContain("no/such/file.json: error TSH001");
    const batch = tile("validate", "no/such/file.json", "cases/softmax.json");
    expect(batch.code).toBe(2);
    expect(batch.stdout).toContain("cases/softmax.json: ok (softmax)");
    expect(tile("plan", "no/such/file.json").stderr).toContain("no/such/file.json");
    noStack(r);
  });

  it("2 for a directory", () => {
    const r = tile("validate", "cases");
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("directory");
    noStack(r);
  });

  it("2 for a file that is not UTF-8 (TIR027, from the shell)", () => {
    const bad = path.join(tmp, "latin1.json");
    fs.writeFileSync(bad, Buffer.concat([Buffer.from('{"tile": 1, "name": "gr'), Buffer.from([0xf6]), Buffer.from('\u00dfe"}')]));
    const r = tile("validate", bad);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("error TIR027 (invalid-utf8)");
    expect(r.stdout).toContain("offset 23");
    noStack(r);
    const j = tile("validate", bad, "--json");
    expect(j.code).toBe(2);
    expect(JSON.parse(j.stdout)).toMatchObject({ file: bad, ok: false, diagnostics: [{ code: "TIR027", pointer: "" }] });
    const e = tile("eval", bad);
    expect(e.code).toBe(2);
    expect(e.stdout).toContain("TIR027");
  });

  it("2 for an unknown flag", () => {
    const r = tile("validate", "--frobnicate", sum);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--frobnicate");
    noStack(r);
  });

  it("2 for an unknown engine", () => {
    expect(tile("validate", "--engine", "gpu", sum).code).toBe(2);
  });

  for (const bad of ["C=0", "C=-3", "C=abc", "=4", "C", "C=99999999999"]) {
    it(`2 for a bad --size ${bad}`, () => {
      const r = tile("validate", "--size", bad, sum);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/^tile: --size/);
      noStack(r);
    });
  }

  it("eval exits 1 naming the access when the inputs take a gather out of bounds (it was an internal error, exit 3)", () => {
    const doc = {
      tile: 1, name: "g1", attrs: { noalias: true }, sizes: { R: 33 },
      params: [{ name: "I", dtype: "i32", shape: ["R"] }, { name: "X", dtype: "f32", shape: ["R"] }, { name: "Y", dtype: "f32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [{ store: "Y", at: ["r"], value: ["load", "X", [["add", ["load", "I", ["r"]], 40]]] }] }],
    };
    const file = path.join(os.tmpdir(), `tile-eval-oob-${process.pid}.json`);
    fs.writeFileSync(file, JSON.stringify(doc));
    const r = tile("eval", file);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/the evaluation failed: \/body\/0\/body\/0\/value\/2\/0: load X: index 0 is \d+, outside \[0, 33\)/);
    noStack(r);
    const j = tile("eval", file, "--json");
    expect(j.code).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false });
    fs.rmSync(file);
  });

  it("2 for a size given twice, which names both values (it took the last one silently)", () => {
    const r = tile("validate", "--size", "C=3", "--size", "C=5", sum);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^tile: --size C is given twice \(3 and 5\)/);
    noStack(r);
  });

  it("a size with a non-ASCII name can be overridden", () => {
    const doc = path.join(ROOT, "test", "fixtures", "heldout", "names_non_ascii.json");
    const r = tile("plan", doc, "--size", "\u010c=64", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).mapping.cols).toBe(64);
  });

  it("2 for a --size naming a size the document does not declare (TIR025)", () => {
    const r = tile("validate", "--size", "K=4", sum);
    expect(r.code).toBe(2);
    expect(r.stdout).toContain("error TIR025 (unknown-size-override)");
  });

  it("--help of each command exits 0 and prints usage", () => {
    for (const args of [["--help"], ["validate", "--help"], ["eval", "--help"], ["cases", "--help"], ["suite", "--help"]]) {
      const r = tile(...args);
      expect(r.code, args.join(" ")).toBe(0);
      expect(r.stdout, args.join(" ")).toMatch(/^Usage: tile/);
    }
  });
});

describe("--json output", () => {
  it("validate: one object for one file, an array for several", () => {
    const one = tile("validate", sum, "--json");
    expect(one.code).toBe(0);
    expect(JSON.parse(one.stdout)).toEqual({ file: sum, ok: true, name: "sum", diagnostics: [] });
    const bad = fixture("TIR016-shadowing");
    const two = tile("validate", sum, bad, "--json");
    expect(two.code).toBe(2);
    const list = JSON.parse(two.stdout);
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({ file: sum, ok: true, name: "sum", diagnostics: [] });
    expect(list[1]).toMatchObject({ file: bad, ok: false, name: "rowsum" });
    expect(list[1].diagnostics).toHaveLength(1);
    expect(list[1].diagnostics[0]).toEqual({
      code: "TIR016", id: "name-bound-twice", severity: "error", message: expect.stringMatching(/^Rename "r"/),
      pointer: "/body/0/body/0/over/0", line: 41, column: 13, related: "/body/0/for",
    });
  });

  it("eval: the outputs of the FP64 oracle", () => {
    const r = tile("eval", sum, "--json", "--size", "R=5", "--size", "C=7");
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out).toMatchObject({ file: sum, ok: true, name: "sum", seed: 1, sizes: { R: 5, C: 7 } });
    expect(out.outputs).toHaveLength(1);
    const y = out.outputs[0];
    expect(Object.keys(y)).toEqual(["name", "elements", "written", "min", "max", "mean", "sum", "nan", "inf"]);
    expect([y.nan, y.inf]).toEqual([0, 0]);
    expect([y.name, y.elements, y.written]).toEqual(["Y", 5, 5]);
    expect(y.min).toBeLessThanOrEqual(y.mean);
    expect(y.mean).toBeLessThanOrEqual(y.max);
    expect(y.sum).toBeCloseTo(y.mean * 5, 9);
  });

  it("eval of an invalid document: exit 2 and its diagnostics", () => {
    const r = tile("eval", fixture("TIR012-unknown-buffer"), "--json");
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false, diagnostics: [{ code: "TIR012", pointer: "/body/0/body/1/store" }] });
  });

  it("cases: name, ok and file of each built-in case", () => {
    const r = tile("cases", "--json");
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(caseFiles().map((c) => ({ name: c.name, ok: true, file: null })));
  });
});

describe("commands", () => {
  it("cases --write DIR writes the 17 cases as files that validate", () => {
    const dir = path.join(tmp, "written");
    const r = tile("cases", "--write", dir);
    expect(r.code).toBe(0);
    const files = fs.readdirSync(dir).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    expect(files).toEqual(caseFiles().map((c) => c.name + ".json"));
    const v = tile("validate", "--json", ...files.map((f) => path.join(dir, f)));
    expect(v.code).toBe(0);
    const results = JSON.parse(v.stdout);
    expect(results).toHaveLength(17);
    for (const x of results) expect([x.ok, x.diagnostics]).toEqual([true, []]);
    // Written canonical: each file is a document with the case's name.
    for (const f of files) expect(JSON.parse(fs.readFileSync(path.join(dir, f), "utf8")).name + ".json").toBe(f);
  });

  it("eval --seed is deterministic: the same seed gives the same output, another seed another", () => {
    const a = tile("eval", "cases/softmax.json", "--seed", "7", "--json");
    const b = tile("eval", "cases/softmax.json", "--seed", "7", "--json");
    const c = tile("eval", "cases/softmax.json", "--seed", "8", "--json");
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    expect(c.code).toBe(0);
    expect(c.stdout).not.toBe(a.stdout);
    expect(JSON.parse(c.stdout).seed).toBe(8);
    // Text output too.
    expect(tile("eval", "cases/layernorm.json", "--seed", "3").stdout).toBe(tile("eval", "cases/layernorm.json", "--seed", "3").stdout);
  });

  it("eval --seed rejects a non-integer seed", () => {
    const r = tile("eval", sum, "--seed", "1.5");
    expect(r.code).toBe(2);
    noStack(r);
  });

  it("--engine js and --engine wasm give identical --json output", () => {
    const runs: string[][] = [
      ["validate", sum, fixture("TIR001-trailing-comma"), fixture("TIR023-out-of-bounds"), "--json"],
      ["validate", "--size", "C=33", "cases/softmax.json", "--json"],
      ["eval", "cases/gelu_add.json", "--seed", "5", "--json"],
      ["cases", "--json"],
    ];
    for (const args of runs) {
      const js = tile(...args, "--engine", "js");
      const wasm = tile(...args, "--engine", "wasm");
      expect(js.code, args.join(" ")).toBe(wasm.code);
      expect(js.stdout, args.join(" ")).toBe(wasm.stdout);
      expect(js.stdout.length).toBeGreaterThan(10);
    }
  });
});

describe("the shell's UTF-8 check (TIR027)", () => {
  const at = (...bytes: number[]): number => firstInvalidUtf8(Uint8Array.from(bytes));
  it("accepts every well-formed sequence length", () => {
    expect(at()).toBe(-1);
    expect(at(0x41, 0xc3, 0xa9, 0xe4, 0xb8, 0xad, 0xf0, 0x9f, 0x98, 0x80)).toBe(-1); // A é 中 😀
    expect(at(0xef, 0xbb, 0xbf, 0x7b, 0x7d)).toBe(-1); // a byte order mark
    expect(at(0xf4, 0x8f, 0xbf, 0xbf)).toBe(-1); // U+10FFFF
  });
  it("finds the first bad byte", () => {
    expect(at(0x41, 0x80)).toBe(1); // a lone continuation byte
    expect(at(0x41, 0x42, 0xc0, 0x80)).toBe(2); // overlong NUL
    expect(at(0xe0, 0x80, 0x80)).toBe(0); // overlong
    expect(at(0xed, 0xa0, 0x80)).toBe(0); // an encoded surrogate
    expect(at(0xf4, 0x90, 0x80, 0x80)).toBe(0); // above U+10FFFF
    expect(at(0x41, 0xe2, 0x82)).toBe(1); // truncated
    expect(at(0xf8, 0x88, 0x80, 0x80, 0x80)).toBe(0); // five-byte form
    expect(at(0xc3, 0x41)).toBe(0); // a lead byte without its continuation
  });
  it("agrees with a strict TextDecoder on random bytes", () => {
    const strict = new TextDecoder("utf-8", { fatal: true });
    const rng = new Rng(99);
    for (let i = 0; i < 3000; i++) {
      const n = 1 + rng.below(8);
      const bytes = new Uint8Array(n);
      // Mostly bytes that start or continue multi-byte sequences.
      for (let k = 0; k < n; k++) bytes[k] = rng.below(3) === 0 ? rng.below(256) : 0x80 + rng.below(128);
      let decodes = true;
      try {
        strict.decode(bytes);
      } catch {
        decodes = false;
      }
      expect(firstInvalidUtf8(bytes) < 0, Array.from(bytes).join(",")).toBe(decodes);
    }
  });
});

describe("an invalid device description is an input error (red team, session 23)", () => {
  it("plan, emit and run exit 2 with TPL005, as for an invalid document", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tile-dev-"));
    const dev = path.join(dir, "bad.json");
    fs.writeFileSync(dev, JSON.stringify({ foo: 1 }));
    for (const cmd of ["plan", "emit", "run"]) {
      const r = tile(cmd, sum, "--device", dev);
      expect(r.code, cmd).toBe(2);
      expect(r.stdout + r.stderr, cmd).toContain("TPL005");
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe("--json on a usage error", () => {
  it("prints one JSON object on stdout with the exit code and the error (the message stays on stderr)", () => {
    const cases: [string[], string][] = [
      [["run", sum, "--json", "--size", "C=0"], "usage"],
      [["plan", "no/such/file.json", "--json"], "TSH001"],
      [["run", sum, "--json", "--bogus"], "commander.unknownOption"],
      [["emit", sum, "--json", "--target", "nope"], "commander.invalidArgument"],
      [["plan", "--json"], "commander.missingArgument"],
      [["run", sum, "--json", "--seed", "-1"], "usage"],
      [["audit-msl", "no/such/file.metal", "--json"], "TSH001"],
      [["run", sum, "--json", "--input", "X=no/such/file.npy"], "usage"],
      [["eval", sum, "--json", "--input", "X=no/such/file.npy"], "usage"],
      [["audit-msl", sum, "--json", "--realization", "foo"], "usage"],
    ];
    for (const [args, code] of cases) {
      const r = tile(...args);
      expect(r.code, args.join(" ")).toBe(2);
      const out = JSON.parse(r.stdout);
      expect(out, args.join(" ")).toMatchObject({ ok: false, exit: 2, error: { code } });
      expect(out.error.message.length).toBeGreaterThan(0);
      expect(r.stderr).toContain(out.error.message);
      // a diagnostic's error carries its id, as every diagnostic object does (it was "name")
      expect(Object.keys(out.error).sort(), args.join(" ")).toEqual(code === "TSH001" ? ["code", "id", "message"] : ["code", "message"]);
      if (code === "TSH001") expect(out.error.id).toBe("unreadable-file");
      noStack(r);
    }
    // without --json nothing goes to stdout
    expect(tile("run", sum, "--size", "C=0").stdout).toBe("");
  });
});

describe("small things a user hit (session 10)", () => {
  it("suite --filter that matches nothing is a usage error; device prints no undefined; a run the core did not plan shows no mapping", () => {
    const none = tile("suite", "--filter", "nomatch");
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--filter "nomatch" matches no suite row');
    const dev = tile("device");
    expect(dev.code).toBe(0);
    expect(dev.stdout).not.toContain("undefined");
    const r = tile("run", "cases/gelu_pair.json", "--threads", "100");
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("error TPL009");
    expect(r.stdout).not.toMatch(/P=0 S=0|groups=0|inputs: |error: not planned/);
    // (a refused request ran nothing: not "FAIL", which reads as a wrong result; red team, session 31)
    expect(r.stdout).toContain("verdict: not run (not planned; see the error above)");
    expect(r.stdout).not.toContain("verdict: FAIL");
    // --json: the error is among the diagnostics, first, and the error text names it, not a
    // warning beside it (--no-fuse's TPL011 here; red team, session 32)
    const j = JSON.parse(tile("run", "cases/softmax.json", "--threads", "2048", "--no-fuse", "--runtime", "host", "--json").stdout);
    expect(j.passed).toBe(false);
    expect(j.diagnostics.map((d: any) => `${d.code} ${d.severity}`)).toEqual(["TPL009 error", "TPL011 warning"]);
    expect(j.error).toMatch(/^not planned: TPL009 /);
    expect(j.error).not.toContain("TPL011");
  });

  it("a serial program whose top level is no parallel loop is described as one thread running the whole body", () => {
    const file = path.join(tmp, "serial_top.json");
    // a row loop marked serial, a parallel loop inside it
    fs.writeFileSync(file, JSON.stringify({ tile: 1, name: "serial_top", sizes: { R: 3, C: 5 },
      params: [{ name: "X", dtype: "f32", shape: ["R", "C"] }, { name: "Y", dtype: "f32", shape: ["R", "C"] }],
      body: [{ for: "r", in: [0, "R"], kind: "serial", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["load", "X", ["r", "c"]] },
        { for: "c", in: [0, "C"], kind: "parallel", body: [{ store: "Y", at: ["r", "c"], value: ["sub", ["load", "X", ["r", "c"]], "s"] }] }] }] }));
    const r = tile("plan", file);
    expect(r.stdout).toContain("serial-program  one thread runs the whole body, T=1");
  });

  it("eval takes --input-range as run does, and says which inputs it used", () => {
    const pos = JSON.parse(tile("eval", sum, "--input-range", "0,1", "--json").stdout);
    expect(pos.inputs).toContain("uniform on [0, 1)");
    expect(pos.outputs[0].min).toBeGreaterThan(0);
    const dflt = JSON.parse(tile("eval", sum, "--json").stdout);
    expect(dflt.inputs).toContain("uniform on [-2, 2)");
    expect(dflt.outputs[0].min).toBeLessThan(0);
    expect(tile("eval", sum, "--input-range", "1,0").code).toBe(2);
  });

  it("run prints an i32 output's values and largest error as integers", () => {
    const file = path.join(tmp, "i32_rowsum.json");
    fs.writeFileSync(file, JSON.stringify({ tile: 1, name: "i32_rowsum", attrs: { noalias: true }, sizes: { R: 3, C: 700 },
      params: [{ name: "X", dtype: "i32", shape: ["R", "C"] }, { name: "Y", dtype: "i32", shape: ["R"] }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, "C"], value: ["mul", ["load", "X", ["r", "c"]], 1000] },
        { store: "Y", at: ["r"], value: "s" }] }] }));
    const r = tile("run", file);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const row = r.stdout.split("\n").find((l) => /^\s+Y\s/.test(l)) ?? "";
    expect(row).toMatch(/\s0\s+0\.00e\+0\s/);
    expect(row).toMatch(/got \d+ ref \d+ /);
    expect(row).not.toMatch(/got [\d.]+e/);
  });

  it("eval takes --input as run does: the oracle's outputs for the given contents", () => {
    // X = 1 everywhere at 2 x 3: each row sums to 3
    const x = path.join(tmp, "ones.npy");
    fs.writeFileSync(x, encodeNpy("<f4", [2, 3], new Uint8Array(new Float32Array(6).fill(1).buffer)));
    const r = JSON.parse(tile("eval", sum, "--size", "R=2", "--size", "C=3", "--input", `X=${x}`, "--json").stdout);
    expect(r.ok).toBe(true);
    expect(r.inputs).toContain("buffers given by --input: X");
    expect(r.outputs[0]).toMatchObject({ name: "Y", written: 2, min: 3, max: 3 });
    // the shape must match the sizes, and an output cannot be given
    const bad = tile("eval", sum, "--input", `X=${x}`);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("has shape (2, 3)");
    expect(tile("eval", sum, "--size", "R=2", "--size", "C=3", "--input", `Y=${x}`).code).toBe(2);
    // a one-dimensional shape as NumPy writes it, (4,) (red team, session 33: it printed (4))
    const v = path.join(tmp, "vec4.npy");
    fs.writeFileSync(v, encodeNpy("<f4", [4], new Uint8Array(new Float32Array(4).buffer)));
    const one = tile("eval", sum, "--size", "R=2", "--size", "C=3", "--input", `X=${v}`);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(`${v} has shape (4,); X has shape (2, 3)`);
  });
});
