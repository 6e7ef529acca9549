// The shell's walk over a document's buffers visits each node once: a 60-deep expression is
// walked in linear time (a walk that revisited nested arrays would need ~2^60 steps and hang).
import { describe, expect, it } from "vitest";
import { bufferAccess, writtenBuffers } from "../shell-node/src/access";

describe("bufferAccess", () => {
  it("finds loads and stores everywhere, including deep inside expressions and loop bounds", () => {
    let e: any = ["load", "X", [["load", "I", ["r"]]]];
    for (let i = 0; i < 60; i++) e = ["add", e, ["f32", 1]];
    const doc = {
      params: [{ name: "X" }, { name: "I" }, { name: "Y" }, { name: "Z" }, { name: "E" }],
      body: [{ for: "r", in: [0, "R"], kind: "parallel", body: [
        { reduce: "s", combiner: "sum", over: ["c", 0, ["load", "E", [0]]], value: e },
        { if: ["lt", "s", ["f32", 0]], then: [{ store: "Z", at: ["r"], value: "s" }], else: [{ store: "Y", at: ["r"], value: "s" }] },
      ] }],
    };
    const a = bufferAccess(doc);
    expect([...a.read].sort()).toEqual(["E", "I", "X"]);
    expect([...a.written].sort()).toEqual(["Y", "Z"]);
    expect(writtenBuffers(doc)).toEqual(["Y", "Z"]);
  });
});
