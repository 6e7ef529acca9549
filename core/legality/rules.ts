// The legality rules as a table: one entry per rule id, per family. Packing rules admit the
// cooperative packed reduction; fusion rules admit the fused element grid. Each check is a
// top-level function of the context (no closures), sound: it may reject a legal case but never
// admits an illegal one. `unknown` counts as failure.

import { RuleResult } from "../plan/plan";
import { LegalityContext } from "./context";
import {
  checkIndependentStore, checkNoalias, checkPrivateOwnership, checkPureExpression,
  checkReductionLoopShape, checkTailReadWrite, checkThreadgroupMemory, checkThreadLimit,
} from "./packing";
import {
  checkInjectiveCompactStore, checkNoReadOfWritten, checkSameDomain, checkSingleWriter,
} from "./fusion";

export const FAMILY_PACKING: string = "packing";
export const FAMILY_FUSION: string = "fusion";

export class Rule {
  id: string;
  /** FAMILY_PACKING or FAMILY_FUSION: the realization this rule admits. */
  family: string;
  check: (ctx: LegalityContext) => RuleResult;

  constructor(id: string, family: string, check: (ctx: LegalityContext) => RuleResult) {
    this.id = id;
    this.family = family;
    this.check = check;
  }
}

export const RULES: Array<Rule> = [
  // packing (reduction family, cooperative realization)
  new Rule("noalias", FAMILY_PACKING, checkNoalias),
  new Rule("pure-expression", FAMILY_PACKING, checkPureExpression),
  new Rule("independent-store", FAMILY_PACKING, checkIndependentStore),
  new Rule("private-ownership", FAMILY_PACKING, checkPrivateOwnership),
  new Rule("reduction-loop-shape", FAMILY_PACKING, checkReductionLoopShape),
  new Rule("tail-read-write", FAMILY_PACKING, checkTailReadWrite),
  new Rule("thread-limit", FAMILY_PACKING, checkThreadLimit),
  new Rule("threadgroup-memory", FAMILY_PACKING, checkThreadgroupMemory),
  // fusion (element family, fused element grid)
  new Rule("noalias", FAMILY_FUSION, checkNoalias),
  new Rule("same-domain", FAMILY_FUSION, checkSameDomain),
  new Rule("injective-compact-store", FAMILY_FUSION, checkInjectiveCompactStore),
  new Rule("no-read-of-written", FAMILY_FUSION, checkNoReadOfWritten),
  new Rule("single-writer", FAMILY_FUSION, checkSingleWriter),
];

/** Runs every rule of `family`, in table order. */
export function runRules(family: string, ctx: LegalityContext): Array<RuleResult> {
  const out = new Array<RuleResult>();
  for (let i: i32 = 0; i < RULES.length; i++) {
    const r = RULES[i];
    if (r.family != family) continue;
    const check = r.check;
    out.push(check(ctx));
  }
  return out;
}

/** The ids of `family`'s rules, in table order. */
export function ruleIds(family: string): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < RULES.length; i++) if (RULES[i].family == family) out.push(RULES[i].id);
  return out;
}
