// Shell helpers: reading documents as a user hands them over, printing, and exit codes.
import fs from "node:fs";
import path from "node:path";

/** Exit codes of the CLI: 0 ok, 1 understood but failed (e.g. rejected), 2 bad usage or invalid document. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

export class UsageError extends Error {}

/** Runs `open`; a runtime that cannot be opened (not built, not this OS) is a usage error. */
export function openOrUsage<T>(open: () => T): T {
  try {
    return open();
  } catch (err) {
    throw new UsageError((err instanceof Error ? err.message : String(err)).replace(/^tile: /, ""));
  }
}

export interface ShellDiagnostic {
  code: string;
  id?: string;
  severity: string;
  message: string;
  pointer: string;
  line?: number;
  column?: number;
  related?: string;
}

export interface DocumentText {
  file: string;
  text: string | null;
  /** A diagnostic produced before the core saw the text (bytes that are not UTF-8). */
  diagnostic: ShellDiagnostic | null;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a document file. Missing files and directories are usage errors; bad UTF-8 is a diagnostic. */
export function readDocument(file: string): DocumentText {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new UsageError(`error TSH001 (unreadable-file): cannot read ${file}: no such file`);
  }
  if (stat.isDirectory()) throw new UsageError(`error TSH001 (unreadable-file): ${file} is a directory; give a Tile IR JSON file`);
  const bytes = fs.readFileSync(file);
  const bad = firstInvalidUtf8(bytes);
  if (bad < 0) return { file, text: strictUtf8.decode(bytes), diagnostic: null };
  return {
    file,
    text: null,
    diagnostic: {
      code: "TIR027",
      id: "invalid-utf8",
      severity: "error",
      message: `The file is not valid UTF-8 (first bad byte at offset ${bad}); save it as UTF-8.`,
      pointer: "",
    },
  };
}

/** Offset of the first byte that breaks UTF-8 (RFC 3629), or -1. */
export function firstInvalidUtf8(b: Uint8Array): number {
  let i = 0;
  while (i < b.length) {
    const c = b[i];
    let n = 0;
    let min = 0;
    if (c < 0x80) { i++; continue; }
    else if (c >= 0xc2 && c <= 0xdf) { n = 1; min = 0x80; }
    else if (c >= 0xe0 && c <= 0xef) { n = 2; min = 0x800; }
    else if (c >= 0xf0 && c <= 0xf4) { n = 3; min = 0x10000; }
    else return i;
    let cp = c & (0x3f >> n);
    for (let k = 1; k <= n; k++) {
      const x = b[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return i;
      cp = (cp << 6) | (x & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += n + 1;
  }
  return -1;
}

/**
 * Makes directory `dir` and its missing parents, one level at a time; anything that stops it (a
 * file in the way, no permission, a read-only or virtual file system such as /proc, where a
 * recursive mkdir can retry forever) is a usage error naming the path.
 */
export function ensureDir(dir: string): void {
  const missing: string[] = [];
  let p = path.resolve(dir);
  for (;;) {
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(p);
    } catch {
      st = null;
    }
    if (st) {
      if (!st.isDirectory()) throw new UsageError(`cannot write into ${dir}: ${p} is not a directory`);
      break;
    }
    missing.unshift(p);
    const up = path.dirname(p);
    if (up === p) break;
    p = up;
  }
  for (const m of missing) {
    try {
      fs.mkdirSync(m);
    } catch (err) {
      throw new UsageError(`cannot create the directory ${m}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
    }
  }
}

/** Checks, before any long work, that `file` can be written where it is named: its directory
 *  exists and the path is not a directory (a usage error naming the file otherwise). */
export function checkOutputFile(file: string): void {
  const dir = path.dirname(path.resolve(file));
  let st: fs.Stats | null = null;
  try {
    st = fs.statSync(dir);
  } catch {
    st = null;
  }
  if (!st) throw new UsageError(`cannot write ${file}: the directory ${path.dirname(file)} does not exist`);
  if (!st.isDirectory()) throw new UsageError(`cannot write ${file}: ${path.dirname(file)} is not a directory`);
  let self: fs.Stats | null = null;
  try {
    self = fs.statSync(file);
  } catch {
    self = null;
  }
  if (self && self.isDirectory()) throw new UsageError(`cannot write ${file}: it is a directory`);
}

/** `text` without a leading UTF-8 byte-order mark (editors on Windows write one; JSON.parse refuses
 *  it, and Tile IR documents are read with it already). */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Writes an output file; a missing directory or any write error is a usage error naming it. */
export function writeOutput(file: string, data: string | Uint8Array): void {
  checkOutputFile(file);
  try {
    fs.writeFileSync(file, data);
  } catch (err) {
    throw new UsageError(`cannot write ${file}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
}

/** Parses repeated `--size K=V` values into an object. */
export function parseSizes(list: string[] | undefined): Record<string, number> {
  const out: Record<string, number> = ownRecord();
  for (const item of list ?? []) {
    // a size's name is any string without "=" (Tile IR names are strings, non-ASCII ones too)
    const m = /^([^=]+)=(\d+)$/.exec(item);
    if (!m) throw new UsageError(`--size expects NAME=POSITIVE_INTEGER, got "${item}"`);
    const v = Number(m[2]);
    if (!(v > 0 && v <= 2147483647)) throw new UsageError(`--size ${m[1]} must be a positive 32-bit integer`);
    if (Object.prototype.hasOwnProperty.call(out, m[1])) throw new UsageError(`--size ${m[1]} is given twice (${out[m[1]]} and ${v}); give each size once`);
    setOwn(out, m[1], v);
  }
  return out;
}

/** A dictionary with no prototype: a key such as `__proto__` or `constructor` is an ordinary key. */
export function ownRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** Sets `key` as an own, enumerable property (never the prototype, whatever the key). */
export function setOwn<T>(out: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The CLI flag an "/options/..." pointer is about ("--programs-per-group", "--size C"). */
export function optionFlag(pointer: string): string {
  const parts = pointer.split("/").slice(2);
  const key = parts[0] ?? "";
  if (key === "sizes") return parts[1] ? `--size ${parts[1]}` : "--size";
  if (key === "device") return parts[1] ? `--device (field ${parts[1]})` : "--device";
  // on by default: the label must not read as if --no-cache-input had been passed
  if (key === "cacheInput") return "input caching (on unless --no-cache-input)";
  if (key === "fuse") return "--no-fuse";
  if (key === "serial") return "--no-serial";
  return "--" + key.replace(/[A-Z]/g, (c) => "-" + c.toLowerCase());
}

/**
 * One diagnostic as a compiler prints it: `file:line:col: severity CODE (id): message`, then the
 * source line with a caret under the node when the text is given. Without a position: the JSON
 * pointer (`file#/body/0`), or the CLI flag for an option. The pointer itself stays in --json.
 */
export function formatDiagnostic(file: string, d: ShellDiagnostic, text?: string | null): string {
  let where = file;
  if (d.line) where = `${file}:${d.line}:${d.column}`;
  else if (d.pointer && d.pointer.startsWith("/options")) where = `${file}: ${optionFlag(d.pointer)}`;
  else if (d.pointer) where = `${file}#${d.pointer}`;
  // the position is already in front; the core's message repeats it for JSON readers
  const message = d.line ? d.message.replace(/ \(line \d+, column \d+\)$/, "") : d.message;
  const head = `${where}: ${d.severity} ${d.code}${d.id ? " (" + d.id + ")" : ""}: ${message}`;
  if (!d.line || typeof text !== "string") return head;
  return head + "\n" + sourceExcerpt(text, d.line, d.column ?? 1);
}

/** The source line `line` (1-based) with a caret under column `column` (UTF-16 units). */
export function sourceExcerpt(text: string, line: number, column: number): string {
  const lines = text.split("\n");
  const src = (lines[line - 1] ?? "").replace(/\r$/, "");
  const gutter = String(line);
  const pad = " ".repeat(gutter.length);
  // a long line is shown as a window around the column; tabs are kept so the caret lines up
  let start = 0;
  let end = src.length;
  if (src.length > 120) {
    start = Math.max(0, column - 1 - 60);
    end = Math.min(src.length, start + 120);
  }
  const before = start > 0 ? "..." : "";
  const after = end < src.length ? "..." : "";
  const shown = before + src.slice(start, end) + after;
  const lead = before.replace(/./g, " ") + src.slice(start, Math.max(start, column - 1)).replace(/[^\t]/g, " ");
  return `  ${gutter} | ${shown}\n  ${pad} | ${lead}^`;
}

/** Indents every line of a (possibly multi-line) text. */
export function indent(text: string, by: string): string {
  return text.replace(/^/gm, by);
}

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}

/** Left-aligned text table. */
export function table(rows: string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, c.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i])).join("  ").trimEnd()).join("\n");
}
