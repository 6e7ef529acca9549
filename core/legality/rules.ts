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
  /** True when the verdict depends on P, S or T (not only on the document and the cached buffers). */
  widthDependent: bool;

  constructor(id: string, family: string, check: (ctx: LegalityContext) => RuleResult, widthDependent: bool) {
    this.id = id;
    this.family = family;
    this.check = check;
    this.widthDependent = widthDependent;
  }
}

export const RULES: Array<Rule> = [
  // packing (reduction family, cooperative realization)
  new Rule("noalias", FAMILY_PACKING, checkNoalias, false),
  new Rule("pure-expression", FAMILY_PACKING, checkPureExpression, false),
  new Rule("independent-store", FAMILY_PACKING, checkIndependentStore, false),
  new Rule("private-ownership", FAMILY_PACKING, checkPrivateOwnership, false),
  new Rule("reduction-loop-shape", FAMILY_PACKING, checkReductionLoopShape, false),
  new Rule("tail-read-write", FAMILY_PACKING, checkTailReadWrite, true),
  new Rule("thread-limit", FAMILY_PACKING, checkThreadLimit, true),
  new Rule("threadgroup-memory", FAMILY_PACKING, checkThreadgroupMemory, true),
  // fusion (element family, fused element grid)
  new Rule("noalias", FAMILY_FUSION, checkNoalias, false),
  new Rule("same-domain", FAMILY_FUSION, checkSameDomain, false),
  new Rule("injective-compact-store", FAMILY_FUSION, checkInjectiveCompactStore, false),
  new Rule("no-read-of-written", FAMILY_FUSION, checkNoReadOfWritten, false),
  new Rule("single-writer", FAMILY_FUSION, checkSingleWriter, false),
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

/**
 * Like runRules, but takes the verdicts of width-independent rules from `previous` (the results
 * of the same family for the same document, device and cached buffers) and re-checks only the
 * rules whose verdict depends on P, S or T. The bounded search uses it for every candidate.
 */
export function rerunWidthRules(family: string, ctx: LegalityContext, previous: Array<RuleResult>): Array<RuleResult> {
  const out = new Array<RuleResult>();
  let k: i32 = 0;
  for (let i: i32 = 0; i < RULES.length; i++) {
    const r = RULES[i];
    if (r.family != family) continue;
    if (r.widthDependent || k >= previous.length) {
      const check = r.check;
      out.push(check(ctx));
    } else {
      out.push(previous[k]);
    }
    k++;
  }
  return out;
}

/** True when the packing rule `id`'s verdict depends on P, S or T. */
export function isWidthDependent(id: string): bool {
  for (let i: i32 = 0; i < RULES.length; i++) {
    if (RULES[i].family == FAMILY_PACKING && RULES[i].id == id) return RULES[i].widthDependent;
  }
  return true;
}

/** The ids of `family`'s rules, in table order. */
export function ruleIds(family: string): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < RULES.length; i++) if (RULES[i].family == family) out.push(RULES[i].id);
  return out;
}
