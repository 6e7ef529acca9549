// The Tile planner page: the WebAssembly core, called in the page, on a document a person picks
// (a built-in case), pastes or drops. Every change re-plans:
//   read the form → plan (with candidates) → emit → show diagnostics, plan, cost, candidates, MSL.
// For tests and the curious, the page exposes the core's raw answers:
//   window.tileCall(requestText), window.tilePlan(text, options), window.tileEmit(text, options).
import { TileCore, loadCore } from "./core";
import { Editor } from "./editor";
import { locate } from "./locate";
import { commandLine, declaredSizes, readOptions, syncSizeFields } from "./options";
import { ShowInDocument, renderDiagnostics, renderMsl, renderPlan } from "./render";
import { BuiltinCase, Diagnostic, Emitted, Plan, PlanOptions } from "./types";

declare global {
  interface Window {
    tileCall(request: string): string;
    tilePlan(text: string, options: PlanOptions): string;
    tileEmit(text: string, options: PlanOptions): string;
    tileOptions(): PlanOptions;
  }
}

const OWN_DOCUMENT = "";

function byId<T extends HTMLElement>(id: string, kind: { new (): T }): T {
  const el = document.getElementById(id);
  if (!(el instanceof kind)) throw new Error(`the page lacks #${id}`);
  return el;
}

class Page {
  private readonly editor: Editor;
  private readonly caseSelect = byId("case", HTMLSelectElement);
  private readonly sizesBox = byId("sizes", HTMLDivElement);
  private readonly status = byId("status", HTMLElement);
  private readonly fileName = byId("file-name", HTMLElement);
  private file = "document.json";
  private timer = 0;
  private runs = 0;

  constructor(private readonly core: TileCore, private readonly cases: BuiltinCase[]) {
    this.editor = new Editor(byId("document", HTMLTextAreaElement), byId("mirror", HTMLElement));
  }

  plan(text: string, options: PlanOptions): string {
    return this.core.call(JSON.stringify({ command: "plan", document: text, options }));
  }

  emit(text: string, options: PlanOptions): string {
    return this.core.call(JSON.stringify({ command: "emit", document: text, options }));
  }

  start(): void {
    for (const c of this.cases) this.caseSelect.append(new Option(c.name + (c.ok ? "" : " (invalid)"), c.name));
    this.caseSelect.append(new Option("your own document", OWN_DOCUMENT));
    this.caseSelect.addEventListener("change", () => this.pickCase(this.caseSelect.value));

    const textarea = this.editor.textarea;
    textarea.addEventListener("input", () => {
      this.caseSelect.value = OWN_DOCUMENT;
      this.setFile("document.json");
      this.schedule();
    });
    for (const type of ["dragenter", "dragover"]) {
      textarea.addEventListener(type, (ev) => {
        ev.preventDefault();
        textarea.classList.add("dropping");
      });
    }
    textarea.addEventListener("dragleave", () => textarea.classList.remove("dropping"));
    textarea.addEventListener("drop", (ev) => {
      ev.preventDefault();
      textarea.classList.remove("dropping");
      const f = (ev as DragEvent).dataTransfer?.files[0];
      if (f) void this.openFile(f);
    });
    const picker = byId("open-file", HTMLInputElement);
    picker.addEventListener("change", () => {
      const f = picker.files?.[0];
      if (f) void this.openFile(f);
      picker.value = "";
    });

    const form = byId("options", HTMLFormElement);
    form.addEventListener("input", () => this.schedule());
    form.addEventListener("change", () => this.schedule());
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      this.run();
    });

    const first = this.cases.find((c) => c.name === "softmax") ?? this.cases[0];
    if (first) this.pickCase(first.name);
    else this.run();
  }

  private setFile(name: string): void {
    this.file = name;
    this.fileName.textContent = name;
  }

  private pickCase(name: string): void {
    const c = this.cases.find((x) => x.name === name);
    this.caseSelect.value = c ? c.name : OWN_DOCUMENT;
    if (!c) return;
    this.editor.text = c.text;
    this.setFile(`cases/${c.name}.json`);
    this.run();
  }

  private async openFile(f: File): Promise<void> {
    this.editor.text = await f.text();
    this.caseSelect.value = OWN_DOCUMENT;
    this.setFile(f.name);
    this.run();
  }

  /** Re-plans shortly after the last keystroke. */
  private schedule(): void {
    window.clearTimeout(this.timer);
    this.timer = window.setTimeout(() => this.run(), 150);
  }

  /** Plans and emits the current document with the current options, and shows the answers. */
  run(): void {
    window.clearTimeout(this.timer);
    const text = this.editor.text;
    const declared = declaredSizes(text);
    if (declared !== null) syncSizeFields(this.sizesBox, declared);
    const options = readOptions(this.sizesBox);
    const started = performance.now();
    let plan: Plan | null = null;
    let emitted: Emitted | null = null;
    let diagnostics: Diagnostic[] = [];
    try {
      const answer = JSON.parse(this.plan(text, options)) as Plan | { ok: false; diagnostics: Diagnostic[] };
      if ("rules" in answer) plan = answer;
      diagnostics = answer.diagnostics;
      if (plan !== null && plan.ok) {
        emitted = JSON.parse(this.emit(text, options)) as Emitted;
        for (const d of emitted.diagnostics) if (!diagnostics.some((x) => JSON.stringify(x) === JSON.stringify(d))) diagnostics.push(d);
      }
    } catch (err) {
      diagnostics = [{ code: "PAGE", severity: "error", message: err instanceof Error ? err.message : String(err), pointer: "" }];
    }
    const show: ShowInDocument = (where) => {
      this.editor.highlight(locate(this.editor.text, where));
      this.editor.reveal();
    };
    renderDiagnostics(diagnostics, show);
    const first = diagnostics.find((d) => d.severity === "error") ?? diagnostics[0];
    this.editor.highlight(first ? locate(text, first) : null);
    renderPlan(plan, show);
    renderMsl(emitted, (plan?.kernel || "kernel") + ".metal");
    byId("command-line", HTMLElement).textContent = commandLine("plan", this.file, options) + "\n" + commandLine("emit", this.file, options);
    const ms = (performance.now() - started).toFixed(1);
    this.runs++;
    this.status.textContent = plan?.ok ? `Planned ${plan.name} as ${plan.realization} in ${ms} ms.` : `Not planned: ${diagnostics.length} diagnostic${diagnostics.length === 1 ? "" : "s"}.`;
    document.body.dataset.runs = String(this.runs);
  }
}

async function main(): Promise<void> {
  const status = byId("status", HTMLElement);
  try {
    const core = await loadCore(new URL("tile-core.wasm", document.baseURI).href);
    const version = JSON.parse(core.call('{"command":"version"}')) as { core: string; engine: string; abi: number };
    byId("version", HTMLElement).textContent = `core ${version.core} (${version.engine}, ABI ${version.abi})`;
    const cases = (JSON.parse(core.call('{"command":"cases"}')) as { cases: BuiltinCase[] }).cases;
    const page = new Page(core, cases);
    window.tileCall = (request) => core.call(request);
    window.tilePlan = (text, options) => page.plan(text, options);
    window.tileEmit = (text, options) => page.emit(text, options);
    window.tileOptions = () => readOptions(byId("sizes", HTMLDivElement));
    page.start();
    document.body.dataset.state = "ready";
  } catch (err) {
    status.textContent = "The core could not be loaded: " + (err instanceof Error ? err.message : String(err));
    document.body.dataset.state = "failed";
  }
}

void main();
