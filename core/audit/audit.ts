// The device-artifact audit: reads MSL text (emitted or hand-written; never the plan's internals)
// and checks what the proofs promised.
//
//   barrier-count             the number of threadgroup_barrier( calls is the expected one
//   barrier-under-condition   no barrier under if/else/while/do/switch, a ?: or short-circuit
//                             operand, or after a return that only some threads take
//   barrier-in-varying-loop   no barrier in a for loop whose bounds are not integer literals
//   collective-divergent      every simd_* / quad_* collective is reached by all lanes (same
//                             conditions as barriers)
//   unpredicated-replay-store cooperative reduction: every store to a writable device buffer is
//                             under a condition that includes `live` (taking the address of a
//                             writable element, as a packed store does, counts as a store; one
//                             cast at once to `device const T*`, a packed read, does not)
//   double                    no `double` anywhere (Metal has none)

import { REALIZATION_COOPERATIVE } from "../plan/plan";
import { formatI32 } from "../util/num";
import { Text } from "../util/text";
import {
  TK_IDENT, TK_NUMBER, Tokens, W_BARRIER, W_CASE, W_COLLECTIVE, W_CONST, W_DEFAULT, W_DEVICE, W_DO, W_DOUBLE, W_ELSE,
  W_FOR, W_IF, W_KERNEL, W_LIVE, W_RETURN, W_SWITCH, W_WHILE, isIntLiteral, punctCode, rangeIs, tokenize,
} from "./scan";

// punctuation codes (scan.ts, punctCode): comparing tokens by number, not by text
const P_LPAREN: i32 = 40; // (
const P_RPAREN: i32 = 41; // )
const P_LBRACKET: i32 = 91; // [
const P_RBRACKET: i32 = 93; // ]
const P_LBRACE: i32 = 123; // {
const P_RBRACE: i32 = 125; // }
const P_SEMI: i32 = 59; // ;
const P_QUESTION: i32 = 63; // ?
const P_AMP: i32 = 38; // &
const P_DOT: i32 = 46; // .
const P_ANDAND: i32 = 38 | (38 << 16); // &&
const P_OROR: i32 = 124 | (124 << 16); // ||
const P_ARROW: i32 = 45 | (62 << 16); // ->
const P_COMMA: i32 = 44; // ,
const P_COLON: i32 = 58; // :
const P_STAR: i32 = 42; // *
const P_BANG: i32 = 33; // !
const P_ASSIGN: i32 = 61; // =

export const CHECK_BARRIER_COUNT: string = "barrier-count";
export const CHECK_BARRIER_CONDITION: string = "barrier-under-condition";
export const CHECK_BARRIER_LOOP: string = "barrier-in-varying-loop";
export const CHECK_COLLECTIVE: string = "collective-divergent";
export const CHECK_REPLAY_STORE: string = "unpredicated-replay-store";
export const CHECK_DOUBLE: string = "double";
export const CHECK_NO_KERNEL: string = "no-kernel";

export class Finding {
  check: string;
  line: i32;
  message: string;

  constructor(check: string, line: i32, message: string) {
    this.check = check;
    this.line = line;
    this.message = message;
  }
}

export class AuditReport {
  ok: bool = true;
  realization: string = "";
  barriers: i32 = 0;
  expectedBarriers: i32 = 0;
  collectives: i32 = 0;
  deviceStores: i32 = 0;
  predicatedStores: i32 = 0;
  findings: Array<Finding> = new Array<Finding>();
  /** The audited text and its tokens (not part of the JSON): quotedText reuses what the
   *  tokenizer found out about the text's characters. */
  text: string = "";
  tokens: Tokens | null = null;

  /** Adds `s` as a JSON string to `out`: the same parts as out.quoted(s), without looking at the
   *  characters again where `s` is the audited text and the tokenizer found it plain. */
  quotedText(s: string, out: Text): void {
    const t = this.tokens;
    if (t !== null && t.plain && s == this.text) out.quotedLines(s, t.newlines, t.newlineCount);
    else out.quoted(s);
  }

  /** The ids of the checks that found something, in order of the findings, each once. */
  checks(): Array<string> {
    const out = new Array<string>();
    for (let i: i32 = 0; i < this.findings.length; i++) {
      if (out.indexOf(this.findings[i].check) < 0) out.push(this.findings[i].check);
    }
    return out;
  }

  toJson(out: Text): void {
    out.add("{\"ok\":").add(this.ok ? "true" : "false");
    out.add(",\"realization\":").quoted(this.realization);
    out.add(",\"barriers\":").add(formatI32(this.barriers));
    out.add(",\"expectedBarriers\":").add(formatI32(this.expectedBarriers));
    out.add(",\"collectives\":").add(formatI32(this.collectives));
    out.add(",\"deviceStores\":").add(formatI32(this.deviceStores));
    out.add(",\"predicatedStores\":").add(formatI32(this.predicatedStores));
    out.add(",\"findings\":[");
    for (let i: i32 = 0; i < this.findings.length; i++) {
      const f = this.findings[i];
      if (i > 0) out.add(",");
      out.add("{\"check\":").quoted(f.check);
      out.add(",\"line\":").add(formatI32(f.line));
      out.add(",\"message\":").quoted(f.message).add("}");
    }
    out.add("]}");
  }
}

// the constructs a Scope's message names (Scope.whyKind)
const WHY_IF: i32 = 1;
const WHY_ELSE: i32 = 2;
const WHY_WHILE: i32 = 3;
const WHY_SWITCH: i32 = 4;
const WHY_DO: i32 = 5;

/** The control context of a statement. Its messages are kept as a construct and a line and
 *  written only where a finding quotes them (most scopes never do). */
class Scope {
  /** Some enclosing construct lets only some threads reach this point. */
  conditional: bool = false;
  /** Innermost such construct (WHY_*) and its line, for messages (why()). */
  whyKind: i32 = 0;
  whyLine: i32 = 0;
  /** Inside a for loop whose bounds are not integer literals (its line: loopWhy()). */
  varyingLoop: bool = false;
  loopLine: i32 = 0;
  /** Some enclosing (positive) condition mentions `live`. */
  live: bool = false;

  child(): Scope {
    const s = new Scope();
    s.conditional = this.conditional;
    s.whyKind = this.whyKind;
    s.whyLine = this.whyLine;
    s.varyingLoop = this.varyingLoop;
    s.loopLine = this.loopLine;
    s.live = this.live;
    return s;
  }

  /** The innermost construct that only some threads pass ("" where there is none). */
  why(): string {
    const k = this.whyKind;
    if (k == 0) return "";
    const at: string = formatI32(this.whyLine);
    if (k == WHY_IF) return "the if at line " + at;
    if (k == WHY_ELSE) return "the else of the if at line " + at;
    if (k == WHY_DO) return "the do-while at line " + at;
    return "the " + (k == WHY_WHILE ? "while" : "switch") + " at line " + at;
  }

  /** The varying loop ("" where there is none). */
  loopWhy(): string {
    if (!this.varyingLoop) return "";
    return "the for loop at line " + formatI32(this.loopLine) + ", whose bounds are not integer literals";
  }
}

/** The punctuation codes of = += -= *= /= %= &= |= ^= <<= >>= ++ -- (a store when after `buf[...]`). */
function isAssignCode(k: i32): bool {
  if (k == P_ASSIGN) return true;
  const second: i32 = (k >> 16) & 255;
  const first: i32 = k & 65535;
  if (k == punctCode(60, 60, 61, 3) || k == punctCode(62, 62, 61, 3)) return true; // <<= >>=
  if (k > 65535 && k < (1 << 24)) {
    if (second == 61) return first == 43 || first == 45 || first == 42 || first == 47 || first == 37 || first == 38 || first == 124 || first == 94;
    return (first == 43 || first == 45) && second == first; // ++ --
  }
  return false;
}

/** The punctuation codes of < <= > >= != (a for loop's literal bound). */
function isCompareCode(k: i32): bool {
  return k == 60 || k == 62 || k == punctCode(60, 61, 0, 2) || k == punctCode(62, 61, 0, 2) || k == punctCode(33, 61, 0, 2);
}

class Auditor {
  src: string;
  toks: Tokens;
  pos: i32 = 0;
  report: AuditReport;
  coop: bool;
  /** Writable device buffers (kernel parameters and local device pointers) of the current function. */
  writable: Array<string> = new Array<string>();
  /** The current function is a `kernel` (collectives are counted there only). */
  inKernel: bool = true;
  /** expr's stack of flags, one per open bracket (reused: expr does not nest): whether a ?:, && or
   *  || operand starts at that depth; flags[0, top] are the open ones. */
  flags: Array<bool> = new Array<bool>();
  /** A return taken by only some threads has been seen in the current function. */
  divergentReturn: bool = false;
  returnLine: i32 = 0;

  constructor(src: string, toks: Tokens, report: AuditReport, coop: bool) {
    this.src = src;
    this.toks = toks;
    this.report = report;
    this.coop = coop;
  }

  /** The text of token i ("" out of range): taken only where a name is kept or printed. */
  text(i: i32): string {
    return i >= 0 && i < this.toks.length ? this.toks.text(this.src, i) : "";
  }

  /** The word code of token i (0 for other tokens and out of range). */
  word(i: i32): i32 {
    return i >= 0 && i < this.toks.length ? this.toks.word(i) : 0;
  }

  /** Whether tokens i and j have the same text. */
  sameText(i: i32, j: i32): bool {
    const t = this.toks;
    const a: i32 = t.start(i);
    const b: i32 = t.start(j);
    const n: i32 = t.end(i) - a;
    if (t.end(j) - b != n) return false;
    for (let k: i32 = 0; k < n; k++) if (this.src.charCodeAt(a + k) != this.src.charCodeAt(b + k)) return false;
    return true;
  }

  /** Whether token i is an identifier in the list of writable buffers. */
  isWritable(i: i32): bool {
    const s: i32 = this.toks.start(i);
    const e: i32 = this.toks.end(i);
    for (let k: i32 = 0; k < this.writable.length; k++) if (rangeIs(this.src, s, e, this.writable[k])) return true;
    return false;
  }

  /** The punctuation code of token i (-1 for other tokens and out of range). */
  code(i: i32): i32 {
    return i >= 0 && i < this.toks.length ? this.toks.code(i) : -1;
  }

  line(i: i32): i32 {
    if (this.toks.length == 0) return 0;
    if (i >= this.toks.length) return this.toks.line(this.toks.length - 1);
    return this.toks.line(i < 0 ? 0 : i);
  }

  find(check: string, line: i32, message: string): void {
    this.report.findings.push(new Finding(check, line, message));
  }

  /** Index of the token closing the bracket opened at `i` (or the end). */
  matching(i: i32): i32 {
    const oc: i32 = this.code(i);
    if (oc >= 0) {
      // by code (the same answer as by text: codes and texts of punctuation correspond)
      const cc: i32 = oc == P_LPAREN ? P_RPAREN : oc == P_LBRACKET ? P_RBRACKET : P_RBRACE;
      let d: i32 = 0;
      for (let j: i32 = i; j < this.toks.length; j++) {
        const k: i32 = this.toks.code(j);
        if (k == oc) d = d + 1;
        else if (k == cc) {
          d = d - 1;
          if (d == 0) return j;
        }
      }
      return this.toks.length;
    }
    // an identifier or number where a bracket was expected: its own text opens, `}` closes
    let depth: i32 = 0;
    for (let j: i32 = i; j < this.toks.length; j++) {
      if (this.sameText(i, j)) depth = depth + 1;
      else if (this.toks.code(j) == P_RBRACE) {
        depth = depth - 1;
        if (depth == 0) return j;
      }
    }
    return this.toks.length;
  }

  /** End (index of the ';') of a simple statement starting at `i`. */
  statementEnd(i: i32): i32 {
    let depth: i32 = 0;
    for (let j: i32 = i; j < this.toks.length; j++) {
      const k: i32 = this.toks.code(j);
      if (k == P_LPAREN || k == P_LBRACKET || k == P_LBRACE) depth = depth + 1;
      else if (k == P_RPAREN || k == P_RBRACKET || k == P_RBRACE) {
        if (depth == 0) return j; // unbalanced: stop before the closer
        depth = depth - 1;
      } else if (k == P_SEMI && depth == 0) return j;
    }
    return this.toks.length;
  }

  run(): void {
    const n = this.toks.length;
    let headerStart: i32 = 0;
    while (this.pos < n) {
      const k: i32 = this.code(this.pos);
      if (k == P_SEMI) {
        this.pos = this.pos + 1;
        headerStart = this.pos;
      } else if (k == P_LBRACE) {
        if (this.code(this.pos - 1) == P_RPAREN || this.word(this.pos - 1) == W_CONST) {
          this.func(headerStart, this.pos);
        } else {
          this.pos = this.matching(this.pos) + 1; // struct, namespace, initializer: skipped
        }
        headerStart = this.pos;
      } else {
        this.pos = this.pos + 1;
      }
    }
  }

  /** A function whose header is [start, open) and whose body opens at `open`. */
  func(start: i32, open: i32): void {
    this.writable = new Array<string>();
    this.divergentReturn = false;
    // a helper's collectives are checked like the kernel's but counted at its call sites
    this.inKernel = false;
    for (let i: i32 = start; i < open; i++) if (this.word(i) == W_KERNEL) this.inKernel = true;
    // the parameter list: the last ')' before the body and its '('
    let close: i32 = open - 1;
    while (close > start && this.code(close) != P_RPAREN) close = close - 1;
    let par: i32 = close;
    let depth: i32 = 0;
    while (par > start) {
      const t: i32 = this.code(par);
      if (t == P_RPAREN) depth = depth + 1;
      else if (t == P_LPAREN) {
        depth = depth - 1;
        if (depth == 0) break;
      }
      par = par - 1;
    }
    this.params(par + 1, close); // kernels and helpers alike
    this.pos = open;
    this.statement(new Scope());
  }

  /** Records writable `device` pointer parameters in [a, b). */
  params(a: i32, b: i32): void {
    let s: i32 = a;
    let depth: i32 = 0;
    for (let i: i32 = a; i <= b; i++) {
      const t: i32 = i < b ? this.code(i) : P_COMMA;
      if (t == P_LPAREN || t == P_LBRACKET) depth = depth + 1;
      else if (t == P_RPAREN || t == P_RBRACKET) depth = depth - 1;
      else if (t == P_COMMA && depth == 0) {
        this.param(s, i);
        s = i + 1;
      }
    }
  }

  param(a: i32, b: i32): void {
    let dev = false;
    let isConst = false;
    let star = false;
    let name: i32 = -1;
    for (let i: i32 = a; i < b; i++) {
      const k: i32 = this.code(i);
      const w: i32 = this.word(i);
      if (k == P_LBRACKET) break; // attribute
      if (w == W_DEVICE) dev = true;
      else if (w == W_CONST && !star) isConst = true;
      else if (k == P_STAR || k == P_AMP) star = true;
      else if (this.toks.kind(i) == TK_IDENT) name = i;
    }
    if (dev && star && !isConst && name >= 0) this.writable.push(this.text(name));
  }

  statement(sc: Scope): void {
    const n = this.toks.length;
    if (this.pos >= n) return;
    const here = this.pos;
    const t: i32 = this.word(here);
    if (this.code(here) == P_LBRACE) {
      this.pos = this.pos + 1;
      while (this.pos < n && this.code(this.pos) != P_RBRACE) {
        const before = this.pos;
        this.statement(sc);
        if (this.pos == before) this.pos = this.pos + 1;
      }
      this.pos = this.pos + 1;
    } else if (t == W_IF) {
      const o = this.pos + 1;
      const c = this.matching(o);
      this.expr(o + 1, c, sc);
      const th = sc.child();
      th.conditional = true;
      th.whyKind = WHY_IF;
      th.whyLine = this.line(here);
      if (this.mentionsLive(o + 1, c)) th.live = true;
      this.pos = c + 1;
      this.statement(th);
      if (this.word(this.pos) == W_ELSE) {
        const el = sc.child();
        el.conditional = true;
        el.whyKind = WHY_ELSE;
        el.whyLine = this.line(here);
        this.pos = this.pos + 1;
        this.statement(el);
      }
    } else if (t == W_FOR) {
      const o = this.pos + 1;
      const c = this.matching(o);
      const inner = sc.child();
      if (!this.literalBounds(o + 1, c)) {
        inner.varyingLoop = true;
        inner.loopLine = this.line(here);
      }
      this.expr(o + 1, c, inner);
      this.pos = c + 1;
      this.statement(inner);
    } else if (t == W_WHILE || t == W_SWITCH) {
      const o = this.pos + 1;
      const c = this.matching(o);
      const inner = sc.child();
      inner.conditional = true;
      inner.whyKind = t == W_WHILE ? WHY_WHILE : WHY_SWITCH;
      inner.whyLine = this.line(here);
      this.expr(o + 1, c, inner);
      this.pos = c + 1;
      this.statement(inner);
    } else if (t == W_DO) {
      const inner = sc.child();
      inner.conditional = true;
      inner.whyKind = WHY_DO;
      inner.whyLine = this.line(here);
      this.pos = this.pos + 1;
      this.statement(inner);
      if (this.word(this.pos) == W_WHILE) {
        const o = this.pos + 1;
        const c = this.matching(o);
        this.expr(o + 1, c, inner);
        this.pos = c + 1;
      }
      if (this.code(this.pos) == P_SEMI) this.pos = this.pos + 1;
    } else if (t == W_RETURN) {
      const e = this.statementEnd(this.pos);
      this.expr(this.pos + 1, e, sc);
      if ((sc.conditional || sc.varyingLoop) && !this.divergentReturn) {
        this.divergentReturn = true;
        this.returnLine = this.line(here);
      }
      this.pos = e + 1;
    } else if (this.code(here) == P_SEMI) {
      this.pos = this.pos + 1;
    } else if (t == W_CASE || t == W_DEFAULT) {
      while (this.pos < n && this.code(this.pos) != P_COLON) this.pos = this.pos + 1;
      this.pos = this.pos + 1;
    } else {
      const e = this.statementEnd(this.pos);
      this.localPointer(this.pos, e);
      this.expr(this.pos, e, sc);
      this.pos = e < n && this.code(e) == P_SEMI ? e + 1 : e;
    }
  }

  /** `device T* p = ...` declares a local pointer into device memory (writable unless const). */
  localPointer(a: i32, b: i32): void {
    if (this.word(a) != W_DEVICE) return;
    let isConst = false;
    for (let i: i32 = a; i < b; i++) {
      if (this.word(i) == W_CONST) isConst = true;
      if (this.code(i) == P_STAR && i + 1 < b && this.toks.kind(i + 1) == TK_IDENT) {
        if (!isConst) this.writable.push(this.text(i + 1));
        return;
      }
    }
  }

  mentionsLive(a: i32, b: i32): bool {
    for (let i: i32 = a; i < b; i++) {
      if (this.word(i) == W_LIVE && this.code(i - 1) != P_BANG) return true;
    }
    return false;
  }

  /** `for (init; cond; step)` with an integer-literal start and an integer-literal bound. */
  literalBounds(a: i32, b: i32): bool {
    const semis = new Array<i32>();
    let depth: i32 = 0;
    for (let i: i32 = a; i < b; i++) {
      const t: i32 = this.code(i);
      if (t == P_LPAREN || t == P_LBRACKET) depth = depth + 1;
      else if (t == P_RPAREN || t == P_RBRACKET) depth = depth - 1;
      else if (t == P_SEMI && depth == 0) semis.push(i);
    }
    if (semis.length != 2) return false;
    // init: ... '=' LITERAL
    const s0 = semis[0];
    if (s0 - a < 2 || this.code(s0 - 2) != P_ASSIGN || this.toks.kind(s0 - 1) != TK_NUMBER || !isIntLiteral(this.text(s0 - 1))) return false;
    // cond: IDENT OP LITERAL or LITERAL OP IDENT
    const c0 = s0 + 1;
    const c1 = semis[1];
    if (c1 - c0 != 3) return false;
    if (!isCompareCode(this.code(c0 + 1))) return false;
    const l: i32 = this.toks.kind(c0);
    const r: i32 = this.toks.kind(c0 + 2);
    if (l == TK_IDENT && r == TK_NUMBER && isIntLiteral(this.text(c0 + 2))) return true;
    return r == TK_IDENT && l == TK_NUMBER && isIntLiteral(this.text(c0));
  }

  /** Scans the tokens [a, b) of an expression or declaration in scope `sc`. */
  expr(a: i32, b: i32, sc: Scope): void {
    const flags = this.flags;
    let top: i32 = 0;
    if (flags.length == 0) flags.push(false);
    else flags[0] = false;
    for (let i: i32 = a; i < b; i++) {
      const k: i32 = this.toks.code(i);
      if (k == P_LPAREN || k == P_LBRACKET) {
        top = top + 1;
        if (top == flags.length) flags.push(false);
        else flags[top] = false;
        continue;
      }
      if (k == P_RPAREN || k == P_RBRACKET) {
        if (top > 0) top = top - 1;
        continue;
      }
      if (k == P_QUESTION || k == P_ANDAND || k == P_OROR) {
        flags[top] = true;
        continue;
      }
      if (this.toks.kind(i) != TK_IDENT) continue;
      const w: i32 = this.toks.word(i);
      const line: i32 = this.toks.line(i);
      if (this.code(i + 1) == P_LPAREN && (w == W_BARRIER || w == W_COLLECTIVE)) {
        let operand = false;
        for (let k: i32 = 0; k <= top; k++) if (flags[k]) operand = true;
        this.sync(w == W_BARRIER, this.text(i), line, sc, operand);
        continue;
      }
      if (this.code(i + 1) == P_LBRACKET && this.code(i - 1) != P_DOT && this.code(i - 1) != P_ARROW && this.isWritable(i)) {
        const close = this.matching(i + 1);
        if (close < b && isAssignCode(this.code(close + 1))) this.store(this.text(i), line, sc);
        // the address of a writable element (`&Y[i]`, a packed store's pointer) counts as a store,
        // unless it is cast at once to a pointer to const (`(device const T*)(&Y[i])`, a packed
        // read), through which nothing can be written
        else if (this.code(i - 1) == P_AMP && !this.constPointerRead(i)) this.store(this.text(i), line, sc);
      }
    }
  }

  /** Whether the element at token i is read as `*((device const T*)(&X[...]))` (a packed read:
   *  dereferenced at once, so no other cast can take the const away). */
  constPointerRead(i: i32): bool {
    if (i < 10) return false;
    const t = this.toks;
    return this.code(i - 2) == P_LPAREN && this.code(i - 3) == P_RPAREN && this.code(i - 4) == P_STAR &&
      t.kind(i - 5) == TK_IDENT && t.word(i - 6) == W_CONST && t.word(i - 7) == W_DEVICE && this.code(i - 8) == P_LPAREN &&
      this.code(i - 9) == P_LPAREN && this.code(i - 10) == P_STAR;
  }

  sync(isBarrier: bool, name: string, line: i32, sc: Scope, operand: bool): void {
    if (isBarrier) this.report.barriers = this.report.barriers + 1;
    else if (this.inKernel) this.report.collectives = this.report.collectives + 1;
    let why: string = "";
    if (operand) why = "an operand of ?:, && or || on the same line";
    else if (sc.conditional) why = sc.why();
    else if (this.divergentReturn) why = "code after the return at line " + formatI32(this.returnLine) + " that only some threads take";
    if (isBarrier) {
      if (why != "") this.find(CHECK_BARRIER_CONDITION, line, "threadgroup_barrier is under a condition (" + why + "): threads that skip it leave the others waiting or racing.");
      if (sc.varyingLoop) this.find(CHECK_BARRIER_LOOP, line, "threadgroup_barrier is inside " + sc.loopWhy() + ": threads may reach it a different number of times.");
    } else {
      let w: string = why;
      if (w == "" && sc.varyingLoop) w = sc.loopWhy();
      if (w != "") this.find(CHECK_COLLECTIVE, line, name + " is not reached by all lanes (" + w + "); a SIMD collective must be uniform.");
    }
  }

  store(buffer: string, line: i32, sc: Scope): void {
    this.report.deviceStores = this.report.deviceStores + 1;
    if (!this.coop) return;
    if (sc.live) {
      this.report.predicatedStores = this.report.predicatedStores + 1;
    } else {
      this.find(CHECK_REPLAY_STORE, line, "the store to device buffer " + buffer + " is not under a condition on `live`: a replayed tail slot would write.");
    }
  }
}

/** Audits MSL text of a kernel of `realization` expected to hold `expectedBarriers` barriers. */
export function auditMsl(msl: string, realization: string, expectedBarriers: i32): AuditReport {
  const report = new AuditReport();
  report.realization = realization;
  report.expectedBarriers = expectedBarriers;
  const toks = tokenize(msl);
  report.text = msl;
  report.tokens = toks;
  let kernels: i32 = 0;
  for (let i: i32 = 0; i < toks.length; i++) {
    if (toks.word(i) == W_KERNEL) kernels++;
    if (toks.word(i) == W_DOUBLE) {
      report.findings.push(new Finding(CHECK_DOUBLE, toks.line(i), "`double` appears; Metal has no double precision."));
    }
  }
  if (kernels == 0) {
    // text with no kernel function (an IR document, an empty file) would otherwise pass every check
    report.findings.push(new Finding(CHECK_NO_KERNEL, 0, "no `kernel` function: this is not the MSL of a Metal kernel (tile emit writes one)."));
  }
  const a = new Auditor(msl, toks, report, realization == REALIZATION_COOPERATIVE);
  a.run();
  if (report.barriers != expectedBarriers) {
    report.findings.push(new Finding(CHECK_BARRIER_COUNT, 0, "found " + formatI32(report.barriers) + " threadgroup_barrier calls, expected " + formatI32(expectedBarriers) + "."));
  }
  report.ok = report.findings.length == 0;
  return report;
}
