// Tile IR reader: JSON value tree -> AST, reporting every structural error (missing, unknown
// or mistyped fields, unknown operators, dtypes and combiners, bad literals, nesting depth).
// Names and types are checked afterwards by ./check.ts.

import { J_ARR, J_BOOL, J_NUM, J_OBJ, J_STR, JsonValue } from "../util/json";
import { Diagnostic, diag, seg } from "../diag/diagnostic";
import { Doc, Expr, Param, Stmt, NO_EXPR } from "./ast";
import { isI32Text, parseDecimalToF32, parseI32 } from "../util/num";
import { didYouMean, nearest, recipeFor } from "../util/suggest";

/** Deepest nesting of statements and expressions accepted in a document. */
export const MAX_IR_DEPTH: i32 = 64;

export const BINARY_OPS: Array<string> = ["add", "sub", "mul", "div", "min", "max", "mod", "lt", "le", "gt", "ge", "eq", "ne", "and", "or"];
export const UNARY_OPS: Array<string> = ["neg", "abs", "exp", "log", "sqrt", "rsqrt", "tanh", "erf", "not"];

export function isBinary(op: string): bool {
  return BINARY_OPS.indexOf(op) >= 0;
}

export function isUnary(op: string): bool {
  return UNARY_OPS.indexOf(op) >= 0;
}

const DTYPES: Array<string> = ["f32", "i32"];
const PARAM_DTYPES: Array<string> = ["f32", "f16", "bf16", "i32"];
const COMBINERS: Array<string> = ["sum", "max", "min"];
// the keys each object of a document may have, and the statement kinds (read only, never mutated)
const KEYS_DOCUMENT: Array<string> = ["tile", "name", "attrs", "sizes", "params", "body"];
const KEYS_ATTRS: Array<string> = ["noalias"];
const KEYS_PARAM: Array<string> = ["name", "dtype", "shape"];
const STMT_KINDS: Array<string> = ["for", "reduce", "let", "store", "if"];
const KEYS_FOR: Array<string> = ["for", "in", "kind", "step", "body"];
const KEYS_REDUCE: Array<string> = ["reduce", "combiner", "over", "value"];
const KEYS_LET: Array<string> = ["let", "value"];
const KEYS_STORE: Array<string> = ["store", "at", "value"];
const KEYS_IF: Array<string> = ["if", "then", "else"];

/** Every expression operator of Tile IR v1 (for suggestions). */
function allOperators(): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < BINARY_OPS.length; i++) out.push(BINARY_OPS[i]);
  for (let i: i32 = 0; i < UNARY_OPS.length; i++) out.push(UNARY_OPS[i]);
  out.push("select");
  out.push("cast");
  out.push("load");
  out.push("f32");
  return out;
}

/** The TIR015 sentence: the nearest operator, or how to write a well-known one Tile IR lacks. */
function unknownOperator(op: string): string {
  const near = nearest(op, allOperators());
  if (near.length > 0) return "Unknown operator \"" + op + "\". Did you mean \"" + near + "\"?";
  const recipe = recipeFor(op);
  if (recipe.length > 0) return "Unknown operator \"" + op + "\": Tile IR has no " + op + "; write it as " + recipe + ".";
  return "Unknown operator \"" + op + "\"; the operators are " + allOperators().join(", ") + " (see the expression table of Tile IR v1).";
}

/** A suggestion for an unknown combiner: the usual other names of sum, max and min, a mean as a
 *  sum divided by the count, else the nearest name (red team, session 32). */
function combinerHint(c: string): string {
  const l = c.toLowerCase();
  if (l == "mean" || l == "avg" || l == "average") {
    return " A mean is a sum divided by the count: reduce with \"sum\", then divide the result by the extent as f32 (for example [\"div\", \"s\", [\"cast\", \"f32\", \"C\"]]).";
  }
  if (l == "add" || l == "plus" || l == "total") return " Did you mean \"sum\"?";
  if (l == "maximum" || l == "amax" || l == "argmax") return " Did you mean \"max\"?" + (l == "argmax" ? " An argmax is a max, then a min over the indices where the element equals it." : "");
  if (l == "minimum" || l == "amin" || l == "argmin") return " Did you mean \"min\"?" + (l == "argmin" ? " An argmin is a min, then a min over the indices where the element equals it." : "");
  if (l == "prod" || l == "product" || l == "mul") return " Tile IR has no product reduction.";
  return didYouMean(c, COMBINERS);
}

function kindName(v: JsonValue): string {
  if (v.kind == J_OBJ) return "an object";
  if (v.kind == J_ARR) return "an array";
  if (v.kind == J_STR) return "a string";
  if (v.kind == J_NUM) return "a number";
  if (v.kind == J_BOOL) return "a boolean";
  return "null";
}

/** Statements enclosing the node at JSON pointer `ptr` (its "/body/", "/then/" and "/else/"
 *  segments). */
function statementLevels(ptr: string): i32 {
  let n: i32 = 0;
  let at: i32 = 0;
  while (true) {
    const i = ptr.indexOf("/", at);
    if (i < 0) break;
    const j = ptr.indexOf("/", i + 1);
    const seg = j < 0 ? ptr.substring(i + 1) : ptr.substring(i + 1, j);
    if (j >= 0 && (seg == "body" || seg == "then" || seg == "else")) n++;
    at = i + 1;
  }
  return n;
}

class IrReader {
  diags: Array<Diagnostic> = new Array<Diagnostic>();

  err(code: string, ptr: string, msg: string): void {
    this.diags.push(diag(code, ptr, msg));
  }

  /** Reports keys of `obj` that are not in `allowed`. */
  onlyKeys(obj: JsonValue, allowed: Array<string>, ptr: string, what: string): void {
    for (let i: i32 = 0; i < obj.keys.length; i++) {
      if (allowed.indexOf(obj.keys[i]) < 0) {
        this.err("TIR005", ptr + seg(obj.keys[i]), "Remove the field \"" + obj.keys[i] + "\": " + what + " has only " + allowed.join(", ") + "." + didYouMean(obj.keys[i], allowed));
      }
    }
  }

  /** The value of a required field of the given JSON kind, or null (reported). */
  field(obj: JsonValue, key: string, kind: i32, ptr: string, what: string): JsonValue | null {
    const i = obj.find(key);
    if (i < 0) {
      this.err("TIR004", ptr, "Add the field \"" + key + "\" to " + what + ".");
      return null;
    }
    const v = obj.items[i];
    if (kind >= 0 && v.kind != kind) {
      const want = new JsonValue(kind, 0, 0);
      this.err("TIR006", ptr + seg(key), "The field \"" + key + "\" of " + what + " must be " + kindName(want) + ", not " + kindName(v) + ".");
      return null;
    }
    return v;
  }

  doc(root: JsonValue): Doc {
    const d = new Doc();
    if (root.kind != J_OBJ) {
      this.err("TIR006", "", "A Tile IR document must be a JSON object, not " + kindName(root) + ".");
      return d;
    }
    this.onlyKeys(root, KEYS_DOCUMENT, "", "a document");
    const ver = this.field(root, "tile", J_NUM, "", "the document");
    if (ver !== null) {
      const v = changetype<JsonValue>(ver);
      if (v.text != "1") this.err("TIR007", "/tile", "Set \"tile\" to 1: this core reads Tile IR version 1 only (found " + v.text + ").");
    }
    const name = this.field(root, "name", J_STR, "", "the document");
    if (name !== null) d.name = changetype<JsonValue>(name).text;
    const ai = root.find("attrs");
    if (ai >= 0) {
      const attrs = root.items[ai];
      if (attrs.kind != J_OBJ) {
        this.err("TIR006", "/attrs", "The field \"attrs\" must be an object such as {\"noalias\": true}.");
      } else {
        d.noaliasPtr = "/attrs";
        this.onlyKeys(attrs, KEYS_ATTRS, "/attrs", "attrs");
        const ni = attrs.find("noalias");
        if (ni >= 0) {
          const nv = attrs.items[ni];
          if (nv.kind != J_BOOL) this.err("TIR006", "/attrs/noalias", "Set \"noalias\" to true or false.");
          else d.noalias = nv.flag;
          d.noaliasPtr = "/attrs/noalias";
        }
      }
    }
    const si = root.find("sizes");
    if (si >= 0) {
      const sizes = root.items[si];
      if (sizes.kind != J_OBJ) {
        this.err("TIR006", "/sizes", "The field \"sizes\" must be an object of named positive integers.");
      } else {
        for (let i: i32 = 0; i < sizes.keys.length; i++) {
          const v = sizes.items[i];
          const p = "/sizes" + seg(sizes.keys[i]);
          let value: i32 = 0;
          if (v.kind == J_NUM && v.isInteger() && isI32Text(v.text)) value = parseI32(v.text);
          if (value <= 0) this.err("TIR020", p, "Give the size \"" + sizes.keys[i] + "\" a positive integer value written in digits (at most 2147483647); found " + (v.kind == J_NUM ? v.text : kindName(v)) + ".");
          this.named(sizes.keys[i], p, "a size");
          d.sizeNames.push(sizes.keys[i]);
          d.sizeValues.push(value);
        }
      }
    }
    const params = this.field(root, "params", J_ARR, "", "the document");
    if (params !== null) {
      const ps = changetype<JsonValue>(params);
      for (let i: i32 = 0; i < ps.items.length; i++) d.params.push(this.param(ps.items[i], "/params/" + i.toString()));
    }
    const body = this.field(root, "body", J_ARR, "", "the document");
    if (body !== null) d.body = this.stmts(changetype<JsonValue>(body), "/body", 1);
    return d;
  }

  /** `name`, after reporting it when it is empty (TIR029): a binding needs a name to be used by. */
  named(name: string, ptr: string, what: string): string {
    if (name.length == 0) this.err("TIR029", ptr, "Give " + what + " a non-empty name.");
    return name;
  }

  param(v: JsonValue, ptr: string): Param {
    if (v.kind != J_OBJ) {
      this.err("TIR006", ptr, "A parameter must be an object with \"name\", \"dtype\" and \"shape\".");
      return new Param("", "", ptr);
    }
    this.onlyKeys(v, KEYS_PARAM, ptr, "a parameter");
    const n = this.field(v, "name", J_STR, ptr, "the parameter");
    const t = this.field(v, "dtype", J_STR, ptr, "the parameter");
    const p = new Param(n === null ? "" : changetype<JsonValue>(n).text, t === null ? "" : changetype<JsonValue>(t).text, ptr);
    if (n !== null) this.named(p.name, ptr + "/name", "a parameter");
    if (t !== null && p.dtype != "f32" && p.dtype != "i32" && p.dtype != "f16" && p.dtype != "bf16") {
      this.err("TIR014", ptr + "/dtype", "Use dtype \"f32\", \"f16\", \"bf16\" or \"i32\" (found \"" + p.dtype + "\")." + didYouMean(p.dtype, PARAM_DTYPES));
    }
    const s = this.field(v, "shape", J_ARR, ptr, "the parameter");
    if (s !== null) {
      const shape = changetype<JsonValue>(s);
      for (let i: i32 = 0; i < shape.items.length; i++) {
        const dv = shape.items[i];
        const dp = ptr + "/shape/" + i.toString();
        if (dv.kind == J_STR) {
          const e = new Expr("name", dp);
          e.name = dv.text;
          e.ref = "size";
          e.ty = "i32";
          p.shape.push(e);
        } else if (dv.kind == J_NUM && dv.isInteger() && isI32Text(dv.text) && parseI32(dv.text) > 0) {
          const e = new Expr("int", dp);
          e.ival = parseI32(dv.text);
          e.ty = "i32";
          p.shape.push(e);
        } else {
          this.err("TIR020", dp, "A shape dimension must be a size name or a positive integer.");
        }
      }
    }
    return p;
  }

  stmts(v: JsonValue, ptr: string, depth: i32): Array<Stmt> {
    const out = new Array<Stmt>();
    for (let i: i32 = 0; i < v.items.length; i++) {
      const s = this.stmt(v.items[i], ptr + "/" + i.toString(), depth);
      if (s !== null) out.push(changetype<Stmt>(s));
    }
    return out;
  }

  stmt(v: JsonValue, ptr: string, depth: i32): Stmt | null {
    if (depth > MAX_IR_DEPTH) {
      this.err("TIR003", ptr, "Statements nest deeper than the limit of " + MAX_IR_DEPTH.toString() + " levels; flatten the program.");
      return null;
    }
    if (v.kind != J_OBJ) {
      this.err("TIR006", ptr, "A statement must be an object (for, reduce, let, store or if), not " + kindName(v) + ".");
      return null;
    }
    const kinds = STMT_KINDS;
    let kind = "";
    for (let k: i32 = 0; k < kinds.length; k++) {
      if (v.find(kinds[k]) >= 0) {
        if (kind.length > 0) {
          this.err("TIR005", ptr + seg(kinds[k]), "A statement has exactly one of for, reduce, let, store, if; split \"" + kind + "\" and \"" + kinds[k] + "\".");
          return null;
        }
        kind = kinds[k];
      }
    }
    if (kind.length == 0) {
      this.err("TIR004", ptr, "Give the statement one of the fields for, reduce, let, store or if.");
      return null;
    }
    const s = new Stmt(kind, ptr);
    if (kind == "for") {
      this.onlyKeys(v, KEYS_FOR, ptr, "a for loop");
      const n = this.field(v, "for", J_STR, ptr, "the loop");
      if (n !== null) s.name = this.named(changetype<JsonValue>(n).text, ptr + "/for", "a loop variable");
      const k = this.field(v, "kind", J_STR, ptr, "the loop");
      if (k !== null) {
        const kt = changetype<JsonValue>(k).text;
        if (kt == "parallel") s.parallel = true;
        else if (kt != "serial") this.err("TIR006", ptr + "/kind", "Set the loop kind to \"parallel\" or \"serial\" (found \"" + kt + "\").");
      }
      const range = this.field(v, "in", J_ARR, ptr, "the loop");
      if (range !== null) {
        const r = changetype<JsonValue>(range);
        if (r.items.length != 2) this.err("TIR006", ptr + "/in", "Write the loop range as [min, extent].");
        else {
          s.min = this.expr(r.items[0], ptr + "/in/0", depth + 1);
          s.extent = this.expr(r.items[1], ptr + "/in/1", depth + 1);
        }
      }
      const si = v.find("step");
      if (si >= 0) {
        s.step = this.expr(v.items[si], ptr + "/step", depth + 1);
        s.hasStep = true;
      } else {
        const one = new Expr("int", ptr + "/step");
        one.ival = 1;
        one.ty = "i32";
        s.step = one;
      }
      const b = this.field(v, "body", J_ARR, ptr, "the loop");
      if (b !== null) s.body = this.stmts(changetype<JsonValue>(b), ptr + "/body", depth + 1);
    } else if (kind == "reduce") {
      this.onlyKeys(v, KEYS_REDUCE, ptr, "a reduce");
      const n = this.field(v, "reduce", J_STR, ptr, "the reduce");
      if (n !== null) s.name = this.named(changetype<JsonValue>(n).text, ptr + "/reduce", "a reduce's scalar");
      const c = this.field(v, "combiner", J_STR, ptr, "the reduce");
      if (c !== null) {
        s.combiner = changetype<JsonValue>(c).text;
        if (s.combiner != "sum" && s.combiner != "max" && s.combiner != "min") {
          this.err("TIR013", ptr + "/combiner", "Use the combiner \"sum\", \"max\" or \"min\" (found \"" + s.combiner + "\")." + combinerHint(s.combiner));
        }
      }
      const over = this.field(v, "over", J_ARR, ptr, "the reduce");
      if (over !== null) {
        const o = changetype<JsonValue>(over);
        if (o.items.length != 3 || o.items[0].kind != J_STR) {
          this.err("TIR006", ptr + "/over", "Write the reduction range as [variable, min, extent].");
        } else {
          s.axis = this.named(o.items[0].text, ptr + "/over/0", "a reduction axis");
          s.min = this.expr(o.items[1], ptr + "/over/1", depth + 1);
          s.extent = this.expr(o.items[2], ptr + "/over/2", depth + 1);
          s.step = new Expr("int", ptr + "/over");
          s.step.ival = 1;
          s.step.ty = "i32";
        }
      }
      const val = this.field(v, "value", -1, ptr, "the reduce");
      if (val !== null) s.value = this.expr(changetype<JsonValue>(val), ptr + "/value", depth + 1);
    } else if (kind == "let") {
      this.onlyKeys(v, KEYS_LET, ptr, "a let");
      const n = this.field(v, "let", J_STR, ptr, "the let");
      if (n !== null) s.name = this.named(changetype<JsonValue>(n).text, ptr + "/let", "a let's scalar");
      const val = this.field(v, "value", -1, ptr, "the let");
      if (val !== null) s.value = this.expr(changetype<JsonValue>(val), ptr + "/value", depth + 1);
    } else if (kind == "store") {
      this.onlyKeys(v, KEYS_STORE, ptr, "a store");
      const n = this.field(v, "store", J_STR, ptr, "the store");
      if (n !== null) s.name = changetype<JsonValue>(n).text;
      const at = this.field(v, "at", J_ARR, ptr, "the store");
      if (at !== null) s.at = this.exprs(changetype<JsonValue>(at), ptr + "/at", depth + 1);
      const val = this.field(v, "value", -1, ptr, "the store");
      if (val !== null) s.value = this.expr(changetype<JsonValue>(val), ptr + "/value", depth + 1);
    } else {
      this.onlyKeys(v, KEYS_IF, ptr, "an if");
      const c = this.field(v, "if", -1, ptr, "the if");
      if (c !== null) s.cond = this.expr(changetype<JsonValue>(c), ptr + "/if", depth + 1);
      const t = this.field(v, "then", J_ARR, ptr, "the if");
      if (t !== null) s.body = this.stmts(changetype<JsonValue>(t), ptr + "/then", depth + 1);
      const ei = v.find("else");
      if (ei >= 0) {
        if (v.items[ei].kind != J_ARR) this.err("TIR006", ptr + "/else", "The field \"else\" must be an array of statements.");
        else {
          s.orelse = this.stmts(v.items[ei], ptr + "/else", depth + 1);
          s.hasElse = true;
        }
      }
    }
    return s;
  }

  exprs(v: JsonValue, ptr: string, depth: i32): Array<Expr> {
    const out = new Array<Expr>();
    for (let i: i32 = 0; i < v.items.length; i++) out.push(this.expr(v.items[i], ptr + "/" + i.toString(), depth));
    return out;
  }

  expr(v: JsonValue, ptr: string, depth: i32): Expr {
    if (depth > MAX_IR_DEPTH) {
      // the limit counts statements and expressions together: where statements take most of it,
      // binding parts with let cannot help
      const levels = statementLevels(ptr);
      if (levels * 2 > MAX_IR_DEPTH) {
        this.err("TIR003", ptr, "This expression lies inside " + levels.toString() + " nested statements: statements and their expressions together nest deeper than the limit of " + MAX_IR_DEPTH.toString() + " levels; flatten the program.");
      } else {
        this.err("TIR003", ptr, "Expressions nest deeper than the limit of " + MAX_IR_DEPTH.toString() + " levels; bind parts with let.");
      }
      return new Expr("none", ptr);
    }
    if (v.kind == J_NUM) {
      if (!v.isInteger()) {
        // 0.0 or 8e0 where a loop bound or an index is meant: the integer is the likelier fix
        const x: f64 = parseFloat(v.text);
        const whole = x == Math.floor(x) && Math.abs(x) <= 2147483647.0;
        this.err("TIR006", ptr, whole
          ? "The number " + v.text + " has a fraction or an exponent: a bare number is an i32 literal written in digits. Write " + (<i32>x).toString() + " where an integer is meant (a loop bound, an index), or [\"f32\", " + v.text + "] for a float value."
          : "Write the float literal as [\"f32\", " + v.text + "]; a bare number is an i32 literal.");
        return new Expr("none", ptr);
      }
      if (!isI32Text(v.text)) {
        this.err("TIR024", ptr, "The integer " + v.text + " does not fit in i32.");
        return new Expr("none", ptr);
      }
      const e = new Expr("int", ptr);
      e.ival = parseI32(v.text);
      return e;
    }
    if (v.kind == J_STR) {
      const e = new Expr("name", ptr);
      e.name = v.text;
      return e;
    }
    if (v.kind != J_ARR) {
      this.err("TIR006", ptr, "An expression is an integer, a name, or an array [operator, operands...], not " + kindName(v) + ".");
      return new Expr("none", ptr);
    }
    if (v.items.length == 0 || v.items[0].kind != J_STR) {
      this.err("TIR006", ptr, "An expression array starts with its operator name, e.g. [\"add\", a, b].");
      return new Expr("none", ptr);
    }
    const op = v.items[0].text;
    const n: i32 = v.items.length - 1;
    if (op == "f32") {
      if (n != 1 || v.items[1].kind != J_NUM) {
        this.err("TIR006", ptr, "Write an f32 literal as [\"f32\", number].");
        return new Expr("none", ptr);
      }
      const x: f64 = parseDecimalToF32(v.items[1].text);
      if (x - x != 0.0) {
        this.err("TIR024", ptr + "/1", "The literal " + v.items[1].text + " is outside the finite f32 range (largest magnitude 3.4028235e38); an infinity cannot be written as a literal: for a masked value or the start of a max use a finite one such as [\"f32\", " + (v.items[1].text.startsWith("-") ? "-3.4e38" : "3.4e38") + "].");
        return new Expr("none", ptr);
      }
      const e = new Expr("f32", ptr);
      e.fval = x;
      return e;
    }
    if (op == "load") {
      if (n != 2 || v.items[1].kind != J_STR || v.items[2].kind != J_ARR) {
        this.err("TIR019", ptr, "Write a load as [\"load\", buffer, [index, ...]].");
        return new Expr("none", ptr);
      }
      const e = new Expr("load", ptr);
      e.name = v.items[1].text;
      e.args = this.exprs(v.items[2], ptr + "/2", depth + 1);
      return e;
    }
    if (op == "cast") {
      if (n != 2 || v.items[1].kind != J_STR) {
        this.err("TIR019", ptr, "Write a cast as [\"cast\", \"f32\" | \"i32\", value].");
        return new Expr("none", ptr);
      }
      const t = v.items[1].text;
      if (t != "f32" && t != "i32") {
        // f16 and bf16 are storage types: arithmetic is f32, and a store rounds to the buffer's type
        const storage = t == "f16" || t == "bf16";
        this.err("TIR014", ptr + "/1", "Cast to \"f32\" or \"i32\" (found \"" + t + "\")." + (storage
          ? " " + t + " is a storage type: values are computed in f32, a load of an " + t + " buffer gives f32, and a store to an " + t + " buffer rounds to " + t + " (round to nearest even), so no cast is needed; to round an intermediate value, store it to an " + t + " buffer and load it back."
          : didYouMean(t, DTYPES)));
        return new Expr("none", ptr);
      }
      const e = new Expr("cast", ptr);
      e.name = t;
      e.args = new Array<Expr>();
      e.args.push(this.expr(v.items[2], ptr + "/2", depth + 1));
      return e;
    }
    let arity: i32 = -1;
    // the operator as the module's own literal (same text): later compares of e.op with a
    // literal then find the same string at once in both builds
    let canon: string = op;
    const bi: i32 = BINARY_OPS.indexOf(op);
    const ui: i32 = bi < 0 ? UNARY_OPS.indexOf(op) : -1;
    if (bi >= 0) {
      arity = 2;
      canon = BINARY_OPS[bi];
    } else if (ui >= 0) {
      arity = 1;
      canon = UNARY_OPS[ui];
    } else if (op == "select") {
      arity = 3;
      canon = "select";
    }
    if (arity < 0) {
      // ["r", "c"] where one index was expected: the indices wrapped in a list of their own
      // (not for a known function with a recipe, such as sigmoid, nor a near miss of an operator
      // name longer than two letters, such as mull: those are operator calls; red team, session 32)
      let names = n >= 1 && recipeFor(op).length == 0 && (op.length <= 2 || nearest(op, allOperators()).length == 0);
      for (let i: i32 = 0; i < v.items.length; i++) if (v.items[i].kind != J_STR && v.items[i].kind != J_NUM) names = false;
      this.err("TIR015", ptr + "/0", unknownOperator(op) + (names ? " The list holds only names and numbers: if it is meant as indices, list them directly, one per dimension (\"at\": [\"r\", \"c\"], not [[\"r\", \"c\"]])." : ""));
      return new Expr("none", ptr);
    }
    if (n != arity) {
      this.err("TIR019", ptr, "The operator \"" + op + "\" takes " + arity.toString() + " operand" + (arity == 1 ? "" : "s") + ", not " + n.toString() + ".");
      return new Expr("none", ptr);
    }
    const e = new Expr(canon, ptr);
    e.args = new Array<Expr>();
    for (let i: i32 = 1; i <= n; i++) e.args.push(this.expr(v.items[i], ptr + "/" + i.toString(), depth + 1));
    return e;
  }
}

export class ReadResult {
  doc: Doc;
  diags: Array<Diagnostic>;

  constructor(doc: Doc, diags: Array<Diagnostic>) {
    this.doc = doc;
    this.diags = diags;
  }
}

/** Builds the AST of a parsed JSON document, with every structural diagnostic. */
export function readIr(root: JsonValue): ReadResult {
  const r = new IrReader();
  const d = r.doc(root);
  return new ReadResult(d, r.diags);
}

export { NO_EXPR };
