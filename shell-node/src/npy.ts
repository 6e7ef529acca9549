// NumPy .npy files (format versions 1.0, 2.0 and 3.0; numpy/lib/format.py documents the layout):
// the magic "\x93NUMPY", a major and minor version byte, the header length (2 bytes little-endian
// in version 1, 4 bytes in versions 2 and 3), an ASCII (version 3: UTF-8) Python dict literal
// {'descr': ..., 'fortran_order': ..., 'shape': (...), } padded with spaces and ending in '\n' so
// that the data starts at a multiple of 64 bytes, then the elements in C (row-major) order.
// We write version 1.0, little-endian, C order; we read any version, and reject what a Tile buffer
// cannot hold (big-endian data, Fortran order, object arrays) with a sentence that says so.

/** The .npy element type of each Tile dtype (numpy's `descr`), and its size in bytes. */
/** bf16, which NumPy lacks, is written and read as float32 holding bf16 values (exact). */
export const NPY_DESCR: Record<string, string> = { f32: "<f4", i32: "<i4", f16: "<f2", bf16: "<f4" };

/** The file of an array: a header, then `bytes` (little-endian elements, row-major). */
export function encodeNpy(descr: string, shape: number[], bytes: Uint8Array): Buffer {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(", ")})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const unpadded = 10 + header.length + 1;
  header += " ".repeat((64 - (unpadded % 64)) % 64) + "\n";
  const head = Buffer.alloc(10);
  head.write("\x93NUMPY", 0, "latin1");
  head[6] = 1;
  head[7] = 0;
  head.writeUInt16LE(header.length, 8);
  return Buffer.concat([head, Buffer.from(header, "latin1"), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]);
}

export interface NpyArray {
  /** numpy's dtype string as written, normalised: '=' and '|' byte orders become '<'. */
  descr: string;
  shape: number[];
  /** The element bytes (little-endian, row-major), `product(shape) * item size` of them. */
  data: Uint8Array;
}

/** Reads a .npy file; a string is the reason it cannot be used. */
export function decodeNpy(buf: Uint8Array): NpyArray | string {
  const magic = Buffer.from(buf.subarray(0, 6)).toString("latin1");
  if (buf.length < 10 || magic !== "\x93NUMPY") return "not a NumPy .npy file (no \\x93NUMPY magic)";
  const major = buf[6];
  if (major < 1 || major > 3) return `unsupported .npy format version ${major}.${buf[7]}`;
  const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const lenBytes = major === 1 ? 2 : 4;
  const headerLen = lenBytes === 2 ? view.getUint16(8, true) : buf.length >= 12 ? view.getUint32(8, true) : -1;
  const start = 8 + lenBytes;
  if (headerLen < 0 || start + headerLen > buf.length) return "the .npy header is truncated";
  const header = Buffer.from(buf.subarray(start, start + headerLen)).toString(major === 3 ? "utf8" : "latin1");
  // a key given twice: NumPy's header is a Python dict literal, whose last value wins, where
  // these patterns would take the first; refused rather than read as another type or shape
  for (const key of ["descr", "fortran_order", "shape"]) {
    if ((header.match(new RegExp(`['"]${key}['"]\\s*:`, "g")) ?? []).length > 1) return `the .npy header gives '${key}' twice`;
  }
  const descr = /['"]descr['"]\s*:\s*['"]([^'"]*)['"]/.exec(header);
  const fortran = /['"]fortran_order['"]\s*:\s*(True|False)/.exec(header);
  const shape = /['"]shape['"]\s*:\s*\(([^)]*)\)/.exec(header);
  if (!descr || !fortran || !shape) return "the .npy header lacks 'descr', 'fortran_order' or 'shape'";
  if (fortran[1] === "True") return "the array is in Fortran order; save it in C order (numpy.ascontiguousarray)";
  let d = descr[1];
  if (d.length === 3 && (d[0] === "=" || d[0] === "|")) d = "<" + d.slice(1);
  if (d[0] === ">") return `the array is big-endian (${descr[1]}); save it as little-endian`;
  const dims: number[] = [];
  for (const part of shape[1].split(",")) {
    const t = part.trim();
    if (t === "") continue;
    if (!/^\d+$/.test(t)) return `the .npy shape (${shape[1]}) is not a tuple of integers`;
    dims.push(Number(t));
  }
  const kind = /^<([a-zA-Z])(\d+)$/.exec(d);
  if (!kind) return `the element type ${descr[1]} is not a plain number type`;
  const item = Number(kind[2]);
  const count = dims.reduce((a, b) => a * b, 1);
  const data = buf.subarray(start + headerLen);
  if (data.length !== count * item) return `the file holds ${data.length} data bytes; shape (${dims.join(", ")}) of ${d} needs ${count * item}`;
  return { descr: d, shape: dims, data: Uint8Array.from(data) };
}
