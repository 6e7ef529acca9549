// The plan options form: one declaration of each numeric option, read into the request's
// options object exactly as the CLI builds it from its flags, and shown as the equivalent
// command line.
import { PlanOptions } from "./types";

type NumericKey = "programsPerGroup" | "threads" | "vector" | "unroll" | "maxThreads";

/** The numeric options: form field id, request key, CLI flag. Blank means "let the solver choose". */
export const NUMERIC_OPTIONS: { id: string; key: NumericKey; flag: string }[] = [
  { id: "opt-P", key: "programsPerGroup", flag: "--programs-per-group" },
  { id: "opt-T", key: "threads", flag: "--threads" },
  { id: "opt-V", key: "vector", flag: "--vector" },
  { id: "opt-U", key: "unroll", flag: "--unroll" },
  { id: "opt-max-threads", key: "maxThreads", flag: "--max-threads" },
];

function field(id: string): HTMLInputElement | HTMLSelectElement {
  const el = document.getElementById(id);
  if (!(el instanceof HTMLInputElement || el instanceof HTMLSelectElement)) throw new Error(`the page lacks #${id}`);
  return el;
}

/** A field's number, or undefined when blank. Non-integers go to the core as typed, which
 *  answers with its own diagnostic. */
function numberOf(id: string): number | undefined {
  const text = field(id).value.trim();
  return text === "" ? undefined : Number(text);
}

/** Reads the form. Key order follows the CLI's planOptionsFrom so both send the same request. */
export function readOptions(sizesBox: HTMLElement): PlanOptions {
  const sizes: Record<string, number> = {};
  for (const input of Array.from(sizesBox.querySelectorAll<HTMLInputElement>("input[data-size]"))) {
    const text = input.value.trim();
    if (text !== "") sizes[input.dataset.size as string] = Number(text);
  }
  const out: PlanOptions = {
    sizes,
    cacheInput: (field("opt-cache") as HTMLInputElement).checked,
    fuse: (field("opt-fuse") as HTMLInputElement).checked,
  };
  for (const o of NUMERIC_OPTIONS) {
    const v = numberOf(o.id);
    if (v !== undefined) out[o.key] = v;
  }
  out.candidates = true;
  return out;
}

/** The `tile` command line that plans the same document with the same options. */
export function commandLine(command: "plan" | "emit", file: string, o: PlanOptions): string {
  const args = ["tile", command];
  if (command === "plan") args.push("--json");
  if (o.candidates) args.push("--candidates");
  for (const [k, v] of Object.entries(o.sizes)) args.push("--size", `${k}=${v}`);
  for (const n of NUMERIC_OPTIONS) if (o[n.key] !== undefined) args.push(n.flag, String(o[n.key]));
  if (!o.cacheInput) args.push("--no-cache-input");
  if (!o.fuse) args.push("--no-fuse");
  args.push(file);
  return args.join(" ");
}

/** One number input per size the document declares; values typed for a size survive edits
 *  that keep the size. The document's value is the placeholder (blank = keep it). */
export function syncSizeFields(box: HTMLElement, declared: Record<string, number>): void {
  const names = Object.keys(declared);
  const current = Array.from(box.querySelectorAll<HTMLInputElement>("input[data-size]"));
  const same = current.length === names.length && current.every((input, i) => input.dataset.size === names[i]);
  if (same) {
    current.forEach((input, i) => (input.placeholder = String(declared[names[i]])));
    return;
  }
  const typed = new Map(current.map((input) => [input.dataset.size as string, input.value]));
  box.replaceChildren();
  if (names.length === 0) {
    const none = document.createElement("p");
    none.className = "hint";
    none.textContent = "The document declares no sizes.";
    box.append(none);
    return;
  }
  for (const name of names) {
    const label = document.createElement("label");
    const id = "size-" + name;
    label.htmlFor = id;
    label.textContent = name;
    const input = document.createElement("input");
    input.type = "number";
    input.min = "1";
    input.step = "1";
    input.id = id;
    input.dataset.size = name;
    input.placeholder = String(declared[name]);
    input.value = typed.get(name) ?? "";
    input.setAttribute("aria-describedby", "sizes-hint");
    box.append(label, input);
  }
}

/** The sizes a document declares, or null when its text is not JSON with a "sizes" object. */
export function declaredSizes(text: string): Record<string, number> | null {
  try {
    const doc = JSON.parse(text) as { sizes?: unknown };
    const s = doc.sizes;
    if (s === null || typeof s !== "object" || Array.isArray(s)) return {};
    const out: Record<string, number> = {};
    for (const [k, v] of Object.entries(s as Record<string, unknown>)) if (typeof v === "number") out[k] = v;
    return out;
  } catch {
    return null;
  }
}
