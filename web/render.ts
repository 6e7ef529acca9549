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
      d.related ? h("span", null, "; related: ", pointerButton(d.related, show)) : null,
      " ",
      canShow ? button : null,
    );
  });
  fill("diagnostics", h("ul", null, ...items));
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
    p.ok ? mappingList(p.mapping, "mapping") : null,
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
  fill("rules", table("The verdict of every legality rule", ["rule", "verdict", "reason", "where"], rows, { id: "rules-table" }));
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
  const bars = h("ul", { class: "bars", "aria-label": "Cost terms, in the model's units" });
  for (const [name, value] of parts) {
    const width = ((100 * Math.max(value, 0)) / largest).toFixed(1);
    bars.append(
      h("li", { "data-term": name }, h("span", { class: "term" }, name), h("span", { class: "track" }, h("span", { class: "bar", style: `width: ${width}%` })), h("span", { class: "num" }, value.toFixed(3))),
    );
  }
  fill(
    "cost",
    h("p", null, "Total ", h("strong", { id: "cost-total" }, c.total.toFixed(3)), Math.abs(sum - c.total) < 0.01 * parts.length ? " model units, the sum of the terms below." : " model units; the terms below."),
    bars,
    quantities.length ? table("Quantities behind the cost", ["quantity", "value"], quantities.map(([k, v]) => [k, String(v)])) : null,
  );
}

const CANDIDATE_KEYS = ["P", "S", "W", "T", "V", "U", "groups", "cached"];

function sameMapping(a: Mapping, b: Mapping): boolean {
  return CANDIDATE_KEYS.every((k) => JSON.stringify(a[k]) === JSON.stringify(b[k]));
}

function renderCandidates(p: Plan): void {
  const list: Candidate[] = p.candidates ?? [];
  if (list.length === 0) {
    fill("candidates", h("p", { class: "hint" }, p.family === "reduction" ? "The solver scored no candidates." : `The ${p.family} family has no width search: no candidates.`));
    return;
  }
  const rows = list.map((c) => {
    const chosen = p.ok && p.realization === "cooperative-reduction" && sameMapping(c.mapping, p.mapping);
    return [
      ...CANDIDATE_KEYS.map((k) => mappingValue(c.mapping[k] ?? "")),
      c.admissible ? "yes" : "no",
      c.failed.join(", "),
      c.cost.total.toFixed(3),
      (chosen ? "chosen. " : "") + (c.note ?? ""),
    ] as Child[];
  });
  const t = table(`${list.length} candidates the solver compared`, [...CANDIDATE_KEYS, "admissible", "fails", "cost", "note"], rows, { id: "candidates-table" });
  list.forEach((c, i) => {
    const tr = t.tBodies[0].rows[i];
    if (!c.admissible) tr.classList.add("inadmissible");
    if (p.ok && p.realization === "cooperative-reduction" && sameMapping(c.mapping, p.mapping)) tr.classList.add("chosen");
  });
  fill("candidates", t);
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
