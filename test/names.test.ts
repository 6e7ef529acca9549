// Identifiers of emitted MSL (core/emit/names.ts): reserved words found by set lookup, names
// that are already identifiers kept without a copy, one identifier per (kind, IR name).
import { describe, expect, it, vi } from "vitest";

vi.mock("../core/glue/wasm", async () => await import("../core/glue/js"));

import { Names, sanitize } from "../core/emit/names";

describe("sanitize", () => {
  it("keeps identifiers, prefixes a leading digit, replaces other characters", () => {
    expect(sanitize("acc")).toBe("acc");
    expect(sanitize("X_1")).toBe("X_1");
    expect(sanitize("9lives")).toBe("k9lives");
    expect(sanitize("")).toBe("k");
    expect(sanitize("a-b.c")).toBe("a_b_c");
    expect(sanitize("7-up")).toBe("k7_up");
    expect(sanitize("π")).toBe("_");
  });
});

describe("Names", () => {
  it("renames reserved words (keywords, Metal names, library functions, macros) and keeps others", () => {
    const n = new Names();
    for (const w of ["float", "kernel", "device", "min", "fabs", "mix", "std", "INFINITY", "tid", "while"]) expect(n.of(w)).toBe("v_" + w);
    expect(n.of("float4")).toBe("v_float4"); // a type name by its stem
    expect(n.of("FLT_MAX")).toBe("v_FLT_MAX"); // a macro family by its prefix
    for (const w of ["M_PI_F", "HALF_MAX", "__x", "CUDA_ARCH", "MTLDevice", "_Upper", "uint16_t", "half3x2", "packed_float4", "tg12", "acc_s", "tile_sum"]) {
      expect(n.of(w), w).toBe("v_" + w);
    }
    for (const w of ["m_pi", "half", "halfx", "float4x", "tg", "tgx1", "acc", "x9"]) expect(n.of(w), w).toBe(w === "half" ? "v_half" : w);
    expect(n.of("alpha")).toBe("alpha");
    expect(n.of("minimum")).toBe("minimum");
  });

  it("names that all sanitize to \"_\" get distinct identifiers and the search ends (it appended \"_\" into reserved \"__\" forever)", () => {
    const n = new Names();
    const ids = ["+", "-", "Ξ", "Ψ", "*"].map((w) => n.buf(w));
    expect(new Set(ids).size).toBe(5);
    expect(ids[0]).toBe("_");
    for (const id of ids) expect(id.startsWith("__"), id).toBe(false);
    expect(ids.every((id) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(id))).toBe(true);
  });

  it("one identifier per kind and IR name: the same answer again, a buffer and a loop of one name apart", () => {
    const n = new Names();
    expect(n.buf("x")).toBe("x");
    expect(n.of("x")).toBe("x_");
    expect(n.buf("x")).toBe("x");
    expect(n.of("x")).toBe("x_");
    expect(n.of("x_")).toBe("x__");
    expect(n.irNames).toEqual(["b:x", "n:x", "n:x_"]);
    expect(n.idents).toEqual(["x", "x_", "x__"]);
  });
});

describe("every identifier the emitted MSL calls or instantiates is renamed when an IR name takes it", () => {
  it("a loop variable named after any called function, template or macro of the built-in kernels is renamed", async () => {
    const { loadEngine } = await import("../shell-node/src/engine");
    const fs = await import("node:fs");
    const js = await loadEngine("js");
    const called = new Set<string>();
    const docs = fs.readdirSync("cases").filter((f) => f.endsWith(".json")).map((f) => fs.readFileSync("cases/" + f, "utf8"));
    for (const doc of docs) {
      for (const options of [{}, { vector: 4 }, { vector: 8 }, { cacheInput: false }, { programsPerGroup: 2 }, { fuse: false }]) {
        const r = js.call({ command: "emit", document: doc, options });
        if (!r.ok) continue;
        const code = (r.msl as string).replace(/\/\/[^\n]*/g, "");
        for (const m of code.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)\s*(\(|<[a-z])/g)) called.add(m[1]);
      }
    }
    // what the kernels call includes the helpers' collectives and bit casts (found by a red team:
    // an axis named as_type broke the NaN test's as_type<uint>)
    for (const w of ["as_type", "simd_any", "simd_max", "tile_is_nan", "threadgroup_barrier"]) expect(called.has(w), w).toBe(true);
    const n = new Names();
    // (the kernel's own name may be shadowed, legal C++ and MSL; #include is a directive)
    const kernel = /_(cooperative_reduction|fused_elementwise|serial_program)$/;
    const kept = [...called].filter((w) => n.of(w) === w && w !== "include" && !kernel.test(w));
    expect(kept).toEqual([]);
  });
});
