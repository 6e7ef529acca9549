// Building a rule's verdict: collect every violation, then decide holds / fails / unknown.

import { RuleResult, VERDICT_FAILS, VERDICT_HOLDS, VERDICT_UNKNOWN, Violation } from "../plan/plan";

export class Verdict {
  id: string;
  violations: Array<Violation> = new Array<Violation>();
  anyFail: bool = false;
  anyUnknown: bool = false;

  constructor(id: string) {
    this.id = id;
  }

  /** A proven violation. */
  fail(reason: string, pointer: string): void {
    this.violations.push(new Violation(reason, pointer));
    this.anyFail = true;
  }

  /** Something the rule could not prove. */
  unknown(reason: string, pointer: string): void {
    this.violations.push(new Violation(reason, pointer));
    this.anyUnknown = true;
  }

  /** `fails` if anything failed, else `unknown` if anything was unproven, else `holds` with `proof`. */
  result(proof: string): RuleResult {
    if (this.violations.length == 0) return new RuleResult(this.id, VERDICT_HOLDS, proof);
    const r = new RuleResult(this.id, this.anyFail ? VERDICT_FAILS : VERDICT_UNKNOWN, "");
    for (let i: i32 = 0; i < this.violations.length; i++) r.violations.push(this.violations[i]);
    return r;
  }
}

export function quoted(name: string): string {
  return "\"" + name + "\"";
}

/** Integer-valued f64 as text (values here are exact integers well inside the i32 range). */
export function num(x: f64): string {
  if (x >= -2147483648.0 && x <= 2147483647.0 && x == Math.floor(x)) return i32(x).toString();
  return "a large value";
}
