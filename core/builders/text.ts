// Small helpers that build Tile IR JSON text. Every helper returns compact JSON for one
// value; the builders nest them. Portable-core subset: no closures, no rest parameters, no
// template literals, numbers printed only from i32 (f32 literals are passed as exact text).

/** A JSON string literal for a plain name (names never need escaping). */
export function q(name: string): string {
  return "\"" + name + "\"";
}

/** An i32 literal. */
export function int(value: i32): string {
  return value.toString();
}

/** `["f32", text]`: an f32 literal whose decimal text is given exactly as it must appear. */
export function f32(text: string): string {
  return "[\"f32\"," + text + "]";
}

/** A unary expression `[op, a]`. */
export function op1(op: string, a: string): string {
  return "[" + q(op) + "," + a + "]";
}

/** A binary expression `[op, a, b]`. */
export function op2(op: string, a: string, b: string): string {
  return "[" + q(op) + "," + a + "," + b + "]";
}

/** `["cast", dtype, a]`. */
export function cast(dtype: string, a: string): string {
  return "[\"cast\"," + q(dtype) + "," + a + "]";
}

/** `["load", buf, [i]]` with one index expression. */
export function load1(buf: string, i: string): string {
  return "[\"load\"," + q(buf) + ",[" + i + "]]";
}

/** `["load", buf, [i, j]]` with two index expressions. */
export function load2(buf: string, i: string, j: string): string {
  return "[\"load\"," + q(buf) + ",[" + i + "," + j + "]]";
}

/** `{"store": buf, "at": [i], "value": value}`. */
export function store1(buf: string, i: string, value: string): string {
  return "{\"store\":" + q(buf) + ",\"at\":[" + i + "],\"value\":" + value + "}";
}

/** `{"store": buf, "at": [i, j], "value": value}`. */
export function store2(buf: string, i: string, j: string, value: string): string {
  return "{\"store\":" + q(buf) + ",\"at\":[" + i + "," + j + "],\"value\":" + value + "}";
}

/** `{"let": name, "value": value}`. */
export function letStmt(name: string, value: string): string {
  return "{\"let\":" + q(name) + ",\"value\":" + value + "}";
}

/** `{"reduce": name, "combiner": combiner, "over": [axis, min, extent], "value": value}`. */
export function reduceStmt(name: string, combiner: string, axis: string, min: string,
                           extent: string, value: string): string {
  return "{\"reduce\":" + q(name) + ",\"combiner\":" + q(combiner) + ",\"over\":[" + q(axis) +
    "," + min + "," + extent + "],\"value\":" + value + "}";
}

/** `{"for": v, "in": [min, extent], "kind": "parallel", "body": [...]}`. */
export function parallelFor(v: string, min: string, extent: string, body: Array<string>): string {
  return "{\"for\":" + q(v) + ",\"in\":[" + min + "," + extent + "],\"kind\":\"parallel\"," +
    "\"body\":[" + body.join(",") + "]}";
}

/** A parameter declaration with a two-dimensional shape. */
export function param2(name: string, dtype: string, d0: string, d1: string): string {
  return "{\"name\":" + q(name) + ",\"dtype\":" + q(dtype) + ",\"shape\":[" + q(d0) + "," +
    q(d1) + "]}";
}

/** A parameter declaration with a one-dimensional shape. */
export function param1(name: string, dtype: string, d0: string): string {
  return "{\"name\":" + q(name) + ",\"dtype\":" + q(dtype) + ",\"shape\":[" + q(d0) + "]}";
}

/** A whole version-1 document over the two sizes `R` and `C`, with `noalias`. */
export function tileDocument(name: string, rows: i32, cols: i32, params: Array<string>,
                         body: Array<string>): string {
  return "{\"tile\":1,\"name\":" + q(name) + ",\"attrs\":{\"noalias\":true}," +
    "\"sizes\":{\"R\":" + int(rows) + ",\"C\":" + int(cols) + "}," +
    "\"params\":[" + params.join(",") + "],\"body\":[" + body.join(",") + "]}";
}
