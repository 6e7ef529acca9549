// Plan options, declared once: read from a request's "options" object by the core, and
// mirrored by the CLI flags (shell-node/src/options.ts maps flags to these keys).

import { J_BOOL, J_NUM, J_OBJ, J_STR, JsonValue } from "./util/json";
import { TARGETS } from "./export/export";
import { Diagnostic, diag, seg } from "./diag/diagnostic";
import { isI32Text, parseI32 } from "./util/num";
import { LAYOUT_PROGRAMS, LAYOUT_WORKERS } from "./plan/plan";

export class Options {
  sizeNames: Array<string> = new Array<string>();
  sizeValues: Array<i32> = new Array<i32>();
  /** 0 = automatic family; P > 0 = exactly P programs per group. */
  programsPerGroup: i32 = 0;
  /** 0 = solver chooses; otherwise the exact threads per group. */
  threads: i32 = 0;
  /** 0 = solver chooses; otherwise 1, 4 or 8. */
  vector: i32 = 0;
  /** 0 = solver chooses (1); otherwise the unroll factor. */
  unroll: i32 = 0;
  cacheInput: bool = true;
  /** Cooperative layout: "" = the solver chooses (the automatic family scores both; explicit
   *  widths mean workers on lanes), "workers-on-lanes" or "programs-on-lanes" (core/plan/plan.ts). */
  layout: string = "";
  /** 0 = the device's limit; otherwise a lower cap on threads per group. */
  maxThreads: i32 = 0;
  fuse: bool = true;
  /** false: falling back to the serial program is an error (TPL010) instead of a warning. */
  serial: bool = true;
  /** Include every candidate in the plan output. */
  candidates: bool = false;
  /** emit: "metal" (the MSL), "mlx" or "torch-mps" (a Python module; core/export). */
  target: string = "metal";
  /** Device description object, when given (else the default profile). */
  device: JsonValue | null = null;

  /** A copy of every field (the size lists and the device shared, not copied). */
  copy(): Options {
    const c = new Options();
    c.sizeNames = this.sizeNames;
    c.sizeValues = this.sizeValues;
    c.programsPerGroup = this.programsPerGroup;
    c.threads = this.threads;
    c.vector = this.vector;
    c.unroll = this.unroll;
    c.cacheInput = this.cacheInput;
    c.layout = this.layout;
    c.maxThreads = this.maxThreads;
    c.fuse = this.fuse;
    c.serial = this.serial;
    c.candidates = this.candidates;
    c.target = this.target;
    c.device = this.device;
    return c;
  }

  /** Whether these options ask for widths or limits of their own (P, T, V, U, a layout, a thread
   *  cap, no input cache). */
  asksWidths(): bool {
    return this.programsPerGroup > 0 || this.threads > 0 || this.vector > 0 || this.unroll > 0 || this.layout.length > 0 || this.maxThreads > 0 || !this.cacheInput;
  }

  /** A copy without the requests asksWidths names (the solver's own choices instead). */
  withoutWidths(): Options {
    const c = this.copy();
    c.programsPerGroup = 0;
    c.threads = 0;
    c.vector = 0;
    c.unroll = 0;
    c.cacheInput = true;
    c.layout = "";
    c.maxThreads = 0;
    return c;
  }
}

/** The cooperative layouts an options object may name. */
export const LAYOUTS: Array<string> = [LAYOUT_WORKERS, LAYOUT_PROGRAMS];

const INT_KEYS: Array<string> = ["programsPerGroup", "threads", "vector", "unroll", "maxThreads"];
const BOOL_KEYS: Array<string> = ["cacheInput", "fuse", "candidates", "serial"];

export class OptionsResult {
  options: Options;
  diags: Array<Diagnostic>;

  constructor(options: Options, diags: Array<Diagnostic>) {
    this.options = options;
    this.diags = diags;
  }
}

/** Reads an options object; unknown keys and bad values are TPL002 diagnostics. */
export function readOptions(v: JsonValue | null): OptionsResult {
  const o = new Options();
  const diags = new Array<Diagnostic>();
  if (v === null) return new OptionsResult(o, diags);
  const obj = changetype<JsonValue>(v);
  if (obj.kind != J_OBJ) {
    diags.push(diag("TAPI01", "/options", "The request's options must be an object."));
    return new OptionsResult(o, diags);
  }
  for (let i: i32 = 0; i < obj.keys.length; i++) {
    const k = obj.keys[i];
    const x = obj.items[i];
    if (k == "sizes") {
      if (x.kind != J_OBJ) {
        diags.push(diag("TPL002", "/options/sizes", "Give size overrides as an object such as {\"C\": 4096}."));
        continue;
      }
      for (let j: i32 = 0; j < x.keys.length; j++) {
        const sv = x.items[j];
        let val: i32 = 0;
        if (sv.kind == J_NUM && sv.isInteger() && isI32Text(sv.text)) val = parseI32(sv.text);
        if (val <= 0) {
          diags.push(diag("TIR020", "/options/sizes" + seg(x.keys[j]), "The size override " + x.keys[j] + " must be a positive integer."));
          continue;
        }
        o.sizeNames.push(x.keys[j]);
        o.sizeValues.push(val);
      }
    } else if (k == "device") {
      o.device = x;
    } else if (k == "target") {
      if (x.kind != J_STR || TARGETS.indexOf(x.text) < 0) {
        diags.push(diag("TPL002", "/options/target", "The option target must be one of " + TARGETS.join(", ") + "."));
        continue;
      }
      o.target = x.text;
    } else if (k == "layout") {
      if (x.kind != J_STR || LAYOUTS.indexOf(x.text) < 0) {
        diags.push(diag("TPL002", "/options/layout", "The option layout must be one of " + LAYOUTS.join(", ") + "."));
        continue;
      }
      o.layout = x.text;
    } else if (INT_KEYS.indexOf(k) >= 0) {
      if (x.kind != J_NUM || !x.isInteger() || !isI32Text(x.text) || parseI32(x.text) < 0) {
        diags.push(diag("TPL002", "/options" + seg(k), "The option " + k + " must be a non-negative integer."));
        continue;
      }
      const n = parseI32(x.text);
      if (k == "programsPerGroup") o.programsPerGroup = n;
      else if (k == "threads") o.threads = n;
      else if (k == "vector") o.vector = n;
      else if (k == "unroll") o.unroll = n;
      else o.maxThreads = n;
    } else if (BOOL_KEYS.indexOf(k) >= 0) {
      if (x.kind != J_BOOL) {
        diags.push(diag("TPL002", "/options" + seg(k), "The option " + k + " must be true or false."));
        continue;
      }
      if (k == "cacheInput") o.cacheInput = x.flag;
      else if (k == "fuse") o.fuse = x.flag;
      else if (k == "serial") o.serial = x.flag;
      else o.candidates = x.flag;
    } else {
      diags.push(diag("TPL002", "/options" + seg(k), "Unknown option \"" + k + "\"."));
    }
  }
  return new OptionsResult(o, diags);
}
