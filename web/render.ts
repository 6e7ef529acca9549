// Rendering the core's answers into the page's sections. Each function fills one section.
import { Child, fill, h, table } from "./dom";
import { Audit, Candidate, Cost, Diagnostic, Emitted, Mapping, Plan } from "./types";

/** Called when a person asks to see a pointer (or line and column) in the document. */
export type ShowInDocument = (where: { pointer: string; line?: number; column?: number }) => void;

function pointerButton(pointer: string, show: ShowInDocument, label = pointer): HTMLButtonElement {
  const b = h("button", { type: "button", class: "pointer", title: "Show " + pointer + " in the document" }, label);
  b.addEventListener("click", () => show({ pointer }));
  return b;
}

function where(d: Diagnostic): string {
  if (d.line !== undefined && d.line > 0) return `line ${d.line}, column ${d.column}`;
  return d.pointer === "" ? "the whole document" : d.pointer;
}

export function renderDiagnostics(list: Diagnostic[], show: ShowInDocument): void {
  if (list.length === 0) {
    fill("diagnostics", h("p", { class: "ok" }, "No diagnostics."));
    return;
  }
  const items = list.map((d, i) => {
    const button = h("button", { type: "button", class: "show", "data-index": String(i) }, "Show in document");
    button.addEventListener("click", () => show(d));
    const canShow = (d.line !== undefined && d.line > 0) || d.pointer !== "";
    return h(
      "li",
      { class: "diagnostic " + d.severity, "data-code": d.code },
      h("span", { class: "code" }, d.code),
      " ",
      h("span", { class: "severity" }, d.severity),
      d.id ? h("span", { class: "id" }, ` (${d.id})`) : null,
      ": ",
      h("span", { class: "message" }, d.message),
      h("br"),
      "at ",
      h("code", { class: "where" }, where(d)),
      // the JSON pointer stays visible beside the line and column (the --json form carries both)
      d.line !== undefined && d.line > 0 && d.pointer !== "" ? h("span", null, " (", h("code", { class: "pointer" }, d.pointer), ")") : null,
      d.related ? h("span", null, "; related: ", pointerButton(d.related, show)) : null,
      " ",
      canShow ? button : null,
    );
  });
  fill("diagnostics", h("ul", null, ...items));
}

/** What a serial plan is, in words (its P, S, W are 0 because nothing cooperates). */
function serialText(p: Plan): HTMLElement {
  return h(
    "p",
    { id: "serial-plan", class: "rejected" },
    p.mapping.T === 1 && p.mapping.groups === 1 && Number(p.mapping.programs ?? 0) > 1
      ? `Serial program: one thread runs every logical program (iteration of the top-level parallel loop) in order, because distinct programs are not proven independent (see the notes). No threads cooperate, so P, S and W do not apply (shown as 0). The diagnostics say why and what would avoid it.`
      : `Serial program: one thread runs each logical program (one iteration of the top-level parallel loop) alone, ${p.mapping.T} threads per group, ${p.mapping.groups} group(s). No threads cooperate, so P, S and W do not apply (shown as 0). The diagnostics say why and what would avoid it.`,
  );
}

/** The widths, explained once beside the mapping. */
export const WIDTH_LEGEND: [string, string][] = [
  ["P", "logical programs (rows) that share one threadgroup"],
  ["S", "SIMD groups of 32 lanes that cooperate on one program"],
  ["W", "workers per program: W = 32 * S"],
  ["T", "threads per threadgroup: T = 32 * S * P (element grid: the block size)"],
  ["V", "consecutive elements a worker (or element thread) handles per step"],
  ["U", "unroll: independent accumulators per worker"],
];

function widthsLegend(realization: string): HTMLElement {
  const items = WIDTH_LEGEND.filter(([k]) => realization === "cooperative-reduction" || k === "T" || k === "V");
  return h("details", { id: "widths-legend" }, h("summary", null, "What the widths mean"), h("dl", null, ...items.map(([k, v]) => h("div", null, h("dt", null, k), h("dd", null, v)))));
}

function mappingValue(v: number | boolean | string[]): string {
  return Array.isArray(v) ? (v.length === 0 ? "none" : v.join(", ")) : String(v);
}

function mappingList(m: Mapping, id?: string): HTMLElement {
  const dl = h("dl", id ? { class: "mapping", id } : { class: "mapping" });
  for (const [k, v] of Object.entries(m)) dl.append(h("div", null, h("dt", null, k), h("dd", { "data-key": k }, mappingValue(v))));
  return dl;
}

export function renderPlan(p: Plan | null, show: ShowInDocument): void {
  // A document that did not load has no plan worth showing: the diagnostics say why.
  if (p === null || (!p.ok && p.rules.length === 0 && p.rejections.length === 0)) {
    for (const id of ["realization", "rules", "cost", "candidates"]) fill(id, h("p", { class: "hint" }, "No plan: see the diagnostics."));
    return;
  }
  const verdict = p.ok ? h("strong", { id: "realization-name" }, p.realization) : h("strong", { id: "realization-name", class: "rejected" }, "not planned");
  fill(
    "realization",
    h("p", null, "Document ", h("code", null, p.name || "(unnamed)"), ", family ", h("code", null, p.family), ": ", verdict, p.ok ? h("span", null, " as kernel ", h("code", null, p.kernel)) : null),
    p.ok && p.realization === "serial-program" ? serialText(p) : null,
    p.ok ? mappingList(p.mapping, "mapping") : null,
    p.ok ? widthsLegend(p.realization) : null,
    p.ok ? h("p", null, `Dispatch: ${p.dispatch.groups} groups of ${p.dispatch.threads} threads`, p.dispatch.threadgroupMemory ? `, ${p.dispatch.threadgroupMemory} bytes of threadgroup memory declared in the kernel` : "", ".") : null,
    p.bindings.length ? table("Bindings", ["kind", "index", "name", "access", "bytes"], p.bindings.map((b) => [b.kind, b.index, b.name, b.access, b.bytes])) : null,
    p.rejections.length ? h("h3", null, "Rejected realizations") : null,
    p.rejections.length ? h("ul", { class: "rejections" }, ...p.rejections.map((r) => h("li", null, h("code", null, r.realization), ` (fails ${r.failed.join(", ")}): ${r.message}`))) : null,
    p.notes.length ? h("ul", { class: "notes" }, ...p.notes.map((n) => h("li", null, "Note: " + n))) : null,
  );
  renderRules(p, show);
  renderCost(p.cost);
  renderCandidates(p);
}

function renderRules(p: Plan, show: ShowInDocument): void {
  if (p.rules.length === 0) {
    fill("rules", h("p", { class: "hint" }, "No rule was evaluated."));
    return;
  }
  const rows: Child[][] = p.rules.map((r) => {
    const reason = h("div", null, r.reason);
    if (r.violations.length > 1) {
      reason.append(h("details", null, h("summary", null, `all ${r.violations.length} violations`), h("ul", null, ...r.violations.map((v) => h("li", null, v.reason, " ", v.pointer ? pointerButton(v.pointer, show) : null)))));
    }
    return [h("code", null, r.id), h("span", { class: "verdict " + r.verdict }, r.verdict), reason, r.pointer ? pointerButton(r.pointer, show) : ""];
  });
  const rejected = p.realization === "serial-program" && p.rejections.length ? p.rejections[0].realization : "";
  const caption = rejected ? `The rules checked for the rejected ${rejected} (the serial program that runs needs none)` : "The verdict of every legality rule";
  fill("rules", table(caption, ["rule", "verdict", "reason", "where"], rows, { id: "rules-table" }));
}

/** Terms that are quantities behind the cost, not parts of its total. */
const QUANTITY_TERMS = ["bytesRead", "bytesWritten", "groupsPerCore", "waves"];

function renderCost(c: Cost): void {
  const parts = Object.entries(c.terms).filter(([k]) => !QUANTITY_TERMS.includes(k));
  const quantities = Object.entries(c.terms).filter(([k]) => QUANTITY_TERMS.includes(k));
  if (parts.length === 0) {
    fill("cost", h("p", { class: "hint" }, "No cost (the document was not planned)."));
    return;
  }
  const largest = Math.max(...parts.map(([, v]) => v), 1e-9);
  const sum = parts.reduce((acc, [, v]) => acc + v, 0);
  const bars = h("ul", { class: "bars", "aria-label": "Cost terms, in model ns" });
  for (const [name, value] of parts) {
    const width = ((100 * Math.max(value, 0)) / largest).toFixed(1);
    bars.append(
      h("li", { "data-term": name }, h("span", { class: "term" }, name), h("span", { class: "track" }, h("span", { class: "bar", style: `width: ${width}%` })), h("span", { class: "num" }, value.toFixed(3))),
    );
  }
  fill(
    "cost",
    h("p", null, "Total ", h("strong", { id: "cost-total" }, c.total.toFixed(3)), Math.abs(sum - c.total) < 0.01 * parts.length ? " model ns (an analytic estimate, not a measurement), the sum of the terms below." : " model ns (an analytic estimate, not a measurement); the terms below."),
    bars,
    quantities.length ? table("Quantities behind the cost", ["quantity", "value"], quantities.map(([k, v]) => [k, String(v)])) : null,
  );
}

const CANDIDATE_KEYS = ["P", "S", "W", "T", "V", "U", "groups", "cached"];

function sameMapping(a: Mapping, b: Mapping): boolean {
  return CANDIDATE_KEYS.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

/** Chosen first, then admissible by cost, then rejected by cost; the margin of the chosen one
 *  over the runner-up (the cheapest other admissible candidate), as a fraction. */
export function rankCandidates(p: Plan): { list: Candidate[]; chosen: boolean; margin: number | null; runnerUp: Candidate | null } {
  const all: Candidate[] = p.candidates ?? [];
  const at = p.ok && p.realization !== "serial-program" ? all.findIndex((c) => sameMapping(c.mapping, p.mapping)) : -1;
  const rest = all.filter((_, i) => i !== at);
  rest.sort((a, b) => (a.admissible === b.admissible ? a.cost.total - b.cost.total : a.admissible ? -1 : 1));
  const list = at >= 0 ? [all[at], ...rest] : rest;
  const runnerUp = at >= 0 ? (rest.find((c) => c.admissible) ?? null) : null;
  const margin = runnerUp && all[at].cost.total > 0 ? runnerUp.cost.total / all[at].cost.total - 1 : null;
  return { list, chosen: at >= 0, margin, runnerUp };
}

function renderCandidates(p: Plan): void {
  const { list, chosen, margin, runnerUp } = rankCandidates(p);
  if (list.length === 0) {
    fill("candidates", h("p", { class: "hint" }, p.family === "reduction" ? "The solver scored no candidates." : `The ${p.family} family has no width search: no candidates.`));
    return;
  }
  const keys = p.realization === "fused-elementwise" ? ["T", "V", "block", "groups"] : CANDIDATE_KEYS;
  const rows = list.map((c, i) => {
    const isChosen = chosen && i === 0;
    const vs = chosen && !isChosen && list[0].cost.total > 0 ? `+${((c.cost.total / list[0].cost.total - 1) * 100).toFixed(1)}%` : "";
    return [
      ...keys.map((k) => mappingValue(c.mapping[k] ?? "")),
      c.admissible ? "yes" : "no",
      c.failed.join(", "),
      c.cost.total.toFixed(3),
      vs,
      (isChosen ? "chosen. " : "") + (c.note ?? ""),
    ] as Child[];
  });
  const t = table(`${list.length} candidates the solver compared: the chosen one first, then the admissible ones by cost, then the rejected ones`, [...keys, "admissible", "fails", "cost (model ns)", "vs chosen", "note"], rows, { id: "candidates-table" });
  list.forEach((c, i) => {
    const tr = t.tBodies[0].rows[i];
    if (!c.admissible) tr.classList.add("inadmissible");
    if (chosen && i === 0) tr.classList.add("chosen");
  });
  const summary =
    margin !== null && runnerUp
      ? h("p", { id: "candidates-margin" }, `Margin: the runner-up (${keys.map((k) => `${k}=${mappingValue(runnerUp.mapping[k] ?? "")}`).join(" ")}) costs ${(margin * 100).toFixed(1)}% more than the chosen candidate.`)
      : h("p", { id: "candidates-margin" }, chosen ? "Margin: no other candidate is admissible." : "No candidate was chosen: the plan is not a width choice.");
  fill("candidates", summary, t);
}

function renderAudit(a: Audit | null): HTMLElement {
  if (a === null) return h("p", { class: "hint" }, "No audit.");
  return h(
    "div",
    { id: "audit" },
    h("p", null, "Audit: ", h("strong", { class: a.ok ? "ok" : "rejected" }, a.ok ? "ok" : "findings"), `; barriers ${a.barriers} (expected ${a.expectedBarriers}), collectives ${a.collectives}, device stores ${a.deviceStores} (predicated ${a.predicatedStores}).`),
    a.findings.length ? h("ul", null, ...a.findings.map((f) => h("li", null, `${f.check} (line ${f.line}): ${f.message}`))) : null,
  );
}

let downloadUrl = "";

export function renderMsl(e: Emitted | null, downloadName: string): void {
  if (downloadUrl !== "") URL.revokeObjectURL(downloadUrl);
  downloadUrl = "";
  if (e === null || !e.ok) {
    fill("msl", h("p", { class: "hint" }, e === null ? "Nothing emitted: the document was not planned." : `Nothing emitted (failed at ${e.failedAt}).`));
    return;
  }
  downloadUrl = URL.createObjectURL(new Blob([e.msl], { type: "text/plain" }));
  const link = h("a", { href: downloadUrl, download: downloadName }, "Download the MSL");
  fill("msl", renderAudit(e.audit), h("p", null, link), h("pre", { id: "msl-text", tabindex: "0", "aria-label": "Emitted Metal Shading Language" }, h("code", null, e.msl)));
}
