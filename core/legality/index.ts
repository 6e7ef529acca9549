// Legality analysis: which realizations are proven correct for a document and a mapping.
//   checkPacking   the packing rules (cooperative reduction) for a context's mapping
//   checkFusion    the fusion rules (fused element grid)
//   failedIds      rules that did not hold (fails and unknown alike)
//   writeConflicts proven write conflicts between parallel iterations (TPL001): the caller
//                  rejects the document outright

import { RuleResult, VERDICT_HOLDS } from "../plan/plan";
import { LegalityContext } from "./context";
import { FAMILY_FUSION, FAMILY_PACKING, rerunWidthRules, runRules } from "./rules";

export { LegalityContext, contextForMapping, packingContext, programCount } from "./context";
export { FAMILY_FUSION, FAMILY_PACKING, RULES, Rule, isWidthDependent, ruleIds } from "./rules";
export { writeConflicts, writeConflictsIn } from "./conflicts";

/** Every packing rule's verdict, in table order. */
export function checkPacking(ctx: LegalityContext): Array<RuleResult> {
  return runRules(FAMILY_PACKING, ctx);
}

/** Packing verdicts for a new width, reusing the width-independent ones of `previous`. */
export function recheckPackingWidths(ctx: LegalityContext, previous: Array<RuleResult>): Array<RuleResult> {
  return rerunWidthRules(FAMILY_PACKING, ctx, previous);
}

/** Every fusion rule's verdict, in table order. */
export function checkFusion(ctx: LegalityContext): Array<RuleResult> {
  return runRules(FAMILY_FUSION, ctx);
}

/** Ids of the rules that did not hold (verdict fails or unknown), in order. */
export function failedIds(results: Array<RuleResult>): Array<string> {
  const out = new Array<string>();
  for (let i: i32 = 0; i < results.length; i++) {
    if (results[i].verdict != VERDICT_HOLDS) out.push(results[i].id);
  }
  return out;
}
