// `tile run --input NAME=FILE.npy`: a buffer's initial contents from a NumPy file. The file's
// element type must be the buffer's dtype (f32: '<f4', i32: '<i4') and its shape the buffer's
// shape after size overrides; a buffer the document only writes starts as sentinels (so that
// unwritten elements are detected) and cannot be given. Every problem is one sentence.
import fs from "node:fs";
import { bufferAccess } from "./access";
import { InputBuffer, shapeOf } from "./inputs";
import { NPY_DESCR, decodeNpy } from "./npy";
import { f16ToNumber } from "./f16";

export interface UserInputs {
  inputs: Map<string, InputBuffer>;
  /** Buffer name -> the file it came from. */
  files: Map<string, string>;
  /** Buffer name -> the file's elements as the buffer's storage bits (f32: 32-bit words, f16 and
   *  bf16: 16-bit), which the kernel is given as they are: a NaN keeps its sign and payload, which
   *  the FP64 values in `inputs` (what the oracle reads) cannot hold. */
  bits: Map<string, Uint32Array | Uint16Array>;
}

/** Loads every `NAME=FILE` of `specs` for `doc` (canonical, sizes applied); a string is an error. */
export function loadUserInputs(doc: any, specs: string[]): UserInputs | string {
  const out: UserInputs = { inputs: new Map(), files: new Map(), bits: new Map() };
  const { read, written } = bufferAccess(doc);
  for (const spec of specs) {
    const eq = spec.indexOf("=");
    if (eq <= 0 || eq === spec.length - 1) return `--input expects NAME=FILE.npy, got "${spec}"`;
    const name = spec.slice(0, eq);
    const file = spec.slice(eq + 1);
    const param = (doc.params as any[]).find((p) => p.name === name);
    if (!param) return `--input ${name}: the document has no buffer "${name}" (buffers: ${(doc.params as any[]).map((p) => p.name).join(", ")})`;
    if (out.inputs.has(name)) return `--input ${name}: given twice`;
    if (written.has(name) && !read.has(name)) {
      return `--input ${name}: the document only writes ${name}; its initial contents are sentinels (so that unwritten elements are detected) and cannot be given`;
    }
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (err) {
      return `--input ${name}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`;
    }
    const arr = decodeNpy(bytes);
    if (typeof arr === "string") return `--input ${name}: ${file}: ${arr}`;
    const want = NPY_DESCR[param.dtype];
    if (arr.descr !== want) return `--input ${name}: ${file} holds ${arr.descr} elements; ${name} is ${param.dtype}, which needs ${want} (numpy: a.astype(numpy.${param.dtype === "i32" ? "int32" : param.dtype === "f16" ? "float16" : "float32"}))`;
    const shape = shapeOf(doc, name);
    if (arr.shape.length !== shape.length || arr.shape.some((d, i) => d !== shape[i])) {
      return `--input ${name}: ${file} has shape ${tupleText(arr.shape)}; ${name} has shape ${tupleText(shape)} with these sizes`;
    }
    const buf = arr.data.buffer.slice(arr.data.byteOffset, arr.data.byteOffset + arr.data.byteLength);
    if (param.dtype === "bf16") {
      const bits = new Uint32Array(buf);
      // a bf16 value is a float32 whose low 16 bits are 0, a NaN too (its payload must fit bf16's)
      const at = bits.findIndex((b) => (b & 0xffff) !== 0);
      if (at >= 0) {
        const v = new Float32Array(buf)[at];
        const what = Number.isNaN(v) ? `a NaN with bits 0x${bits[at].toString(16).padStart(8, "0")}, whose payload bf16 cannot hold` : String(v);
        return `--input ${name}: ${file}: element ${at} (${what}) is not a bf16 value; round the array to bfloat16 first`;
      }
      out.bits.set(name, Uint16Array.from(bits, (b) => b >>> 16));
    } else if (param.dtype === "f16") out.bits.set(name, new Uint16Array(buf));
    else if (param.dtype === "f32") out.bits.set(name, new Uint32Array(buf));
    out.inputs.set(name, param.dtype === "i32" ? new Int32Array(buf)
      : param.dtype === "f16" ? Float64Array.from(new Uint16Array(buf), f16ToNumber)
      : Float64Array.from(new Float32Array(buf)));
    out.files.set(name, file);
  }
  return out;
}

/** A shape as NumPy writes it: (4,) for one dimension, (2, 3) for more, () for none. */
function tupleText(shape: readonly number[]): string {
  return shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
}
