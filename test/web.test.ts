// The planner page (web/, built into dist/web/) in headless Chromium, driven by playwright-core:
// the page loads the WebAssembly core through its byte interface, plans what a person picks,
// pastes or drops, highlights what diagnostics point at, and agrees byte for byte with the
// Node engine and the CLI (`tile plan --json`, `tile emit`) on every built-in case.
// Needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium); without it the
// browser tests are skipped, not failed. Screenshots go to test-artifacts/web/.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import http from "node:http";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { DIST_DIR, ROOT, VALIDATE_DIR } from "./helpers/files";
import { Engine, loadEngine } from "../shell-node/src/engine";
import { PlanOptions, planOptionsFrom } from "../shell-node/src/options";
import { serve } from "../web/serve.mjs";
import { tileInProcess } from "./helpers/cli";

const CHROMIUM = "/usr/bin/chromium";
const INSTALL = "apt-get update && apt-get install -y chromium";
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium) console.warn(`test/web.test.ts: browser tests SKIPPED: ${CHROMIUM} is absent (install it with: ${INSTALL})`);

const WEB_DIR = path.join(DIST_DIR, "web");
const ARTIFACTS = path.join(ROOT, "test-artifacts", "web");
const BIN = path.join(ROOT, "shell-node", "bin", "tile.mjs");
const ROLLUP = path.join(ROOT, "node_modules", "rollup", "dist", "bin", "rollup");
const LAUNCH_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

function run(cmd: string, args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd: ROOT, encoding: "utf8", timeout: 120000, maxBuffer: 64 << 20 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function tile(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  return run(process.execPath, [BIN, ...args]);
}

function get(url: string): Promise<{ status: number; type: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http.get(url, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, type: String(res.headers["content-type"]), body: Buffer.concat(chunks) }));
    }).on("error", reject);
  });
}

/** The value a JSON pointer names in a parsed document. */
function at(doc: unknown, pointer: string): unknown {
  let v: any = doc;
  for (const part of pointer.split("/").slice(1)) v = v[part.replace(/~1/g, "/").replace(/~0/g, "~")];
  return v;
}

/** What the page exposes on window (web/app.ts): the core's raw answers. */
interface TilePage {
  tilePlan(text: string, options: PlanOptions): string;
  tileEmit(text: string, options: PlanOptions): string;
  tileOptions(): PlanOptions;
}

let server: Awaited<ReturnType<typeof serve>>;
let engine: Engine;

beforeAll(async () => {
  const build = run(process.execPath, [ROLLUP, "-c", "rollup.web.config.mjs", "--silent"]);
  expect(build.stderr + build.stdout).toBe("");
  expect(build.code).toBe(0);
  server = await serve({ root: WEB_DIR, port: 0 });
  engine = await loadEngine("wasm");
});

afterAll(async () => {
  await server?.close();
});

describe("the page's build and server", () => {
  it("builds index.html, app.js, style.css and the CLI's own WebAssembly core into dist/web", () => {
    for (const f of ["index.html", "app.js", "style.css"]) expect(fs.existsSync(path.join(WEB_DIR, f)), f).toBe(true);
    // The page runs exactly the module the CLI runs.
    expect(fs.readFileSync(path.join(WEB_DIR, "tile-core.wasm")).equals(fs.readFileSync(path.join(DIST_DIR, "tile-core.wasm")))).toBe(true);
    // No AssemblyScript loader in the bundle: only the host-neutral exports.
    const app = fs.readFileSync(path.join(WEB_DIR, "app.js"), "utf8");
    expect(app).not.toMatch(/@assemblyscript\/loader|__newString|__getString/);
    expect(app).toContain("tile_alloc");
  });

  it("serves the module as application/wasm and nothing outside its root", async () => {
    const wasm = await get(server.url + "tile-core.wasm");
    expect(wasm.status).toBe(200);
    expect(wasm.type).toBe("application/wasm");
    expect(wasm.body.equals(fs.readFileSync(path.join(WEB_DIR, "tile-core.wasm")))).toBe(true);
    expect((await get(server.url)).type).toBe("text/html; charset=utf-8");
    expect((await get(server.url + "%2e%2e/package.json")).status).toBe(404);
    expect((await get(server.url + "..%2fpackage.json")).status).toBe(404);
    expect((await get(server.url + "missing.js")).status).toBe(404);
  });

  it("has its sources type-checked by npm test (web/tsconfig.json, in npm run typecheck)", () => {
    // test/typecheck.test.ts runs every tsc command of `npm run typecheck`, this one among them;
    // running it here as well checked the same sources twice in every `npm test`
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8"));
    expect(String(pkg.scripts.typecheck).split("&&").map((c: string) => c.trim())).toContain("tsc -p web/tsconfig.json");
    expect(fs.readFileSync(path.join(ROOT, "test", "typecheck.test.ts"), "utf8")).toContain("pkg.scripts.typecheck");
  });
});

describe.skipIf(!haveChromium)(`the page in headless Chromium${haveChromium ? "" : ` (SKIPPED: ${CHROMIUM} is absent; install it with: ${INSTALL})`}`, () => {
  let context: BrowserContext;
  let page: Page;
  let profile = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    profile = fs.mkdtempSync(path.join(os.tmpdir(), "tile-web-profile-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: LAUNCH_ARGS, viewport: { width: 1400, height: 1000 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("console", (m) => {
      if (m.type() === "error") pageErrors.push(m.text());
    });
    await page.goto(server.url);
    await page.waitForFunction(() => document.body.dataset.state !== "loading");
  });

  afterAll(async () => {
    await context?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
  });

  const shot = (name: string) => page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });

  /** Runs an action and waits until the page has planned again. */
  async function replanned(action: () => Promise<unknown>): Promise<void> {
    const before = Number(await page.evaluate(() => document.body.dataset.runs ?? "0"));
    await action();
    await page.waitForFunction((n) => Number(document.body.dataset.runs ?? "0") > n, before);
  }

  async function pickCase(name: string): Promise<void> {
    const current = await page.inputValue("#case");
    await replanned(() => (current === name ? page.click("button[type=submit]") : page.selectOption("#case", name)));
  }

  const text = (selector: string) => page.locator(selector).first().textContent();

  it("loads the core and offers every built-in case", async () => {
    expect(await page.evaluate(() => document.body.dataset.state)).toBe("ready");
    const cases = engine.call({ command: "cases" }).cases as { name: string }[];
    const offered = await page.$$eval("#case option", (os) => os.map((o) => (o as HTMLOptionElement).value).filter((v) => v !== ""));
    expect(offered).toEqual(cases.map((c) => c.name));
    expect(await text("#version")).toBe("core 0.1.0 (wasm, ABI 1)");
    expect(await text("#status")).toMatch(/^Planned softmax as cooperative-reduction in /);
    await shot("01-loaded-softmax.png");
  });

  it("plans a picked case, and a new P changes the plan and the MSL", async () => {
    await pickCase("rmsnorm");
    const doc = await page.inputValue("#document");
    const expected = engine.call({ command: "emit", document: doc, options: { sizes: {}, cacheInput: true, fuse: true, candidates: true } });
    expect(await text("#realization-name")).toBe(expected.plan.realization);
    expect(await text("#mapping [data-key=P]")).toBe(String(expected.plan.mapping.P));
    expect(await text("#msl-text")).toBe(expected.msl);
    expect(await page.locator("#rules-table tbody tr").count()).toBe(expected.plan.rules.length);
    expect(await page.locator("#candidates-table tbody tr").count()).toBe(expected.plan.candidates.length);
    expect(await page.locator("#candidates-table tr.chosen").count()).toBe(1);
    expect(await page.locator("#cost [data-term]").count()).toBeGreaterThan(3);
    expect(await text("#cost-total")).toBe(expected.plan.cost.total.toFixed(3));
    await shot("02-case-rmsnorm.png");

    const P = expected.plan.mapping.P === 2 ? 4 : 2;
    await replanned(() => page.fill("#opt-P", String(P)));
    const changed = engine.call({ command: "emit", document: doc, options: { sizes: {}, cacheInput: true, fuse: true, programsPerGroup: P, candidates: true } });
    expect(changed.plan.mapping.P).toBe(P);
    expect(await text("#mapping [data-key=P]")).toBe(String(P));
    const msl = await text("#msl-text");
    expect(msl).toBe(changed.msl);
    expect(msl).not.toBe(expected.msl);
    expect(msl).toContain(` P=${P} `);
    expect(await text("#command-line")).toContain(`tile plan --json --candidates --programs-per-group ${P} cases/rmsnorm.json`);
    await shot("03-rmsnorm-P" + P + ".png");
    await replanned(() => page.fill("#opt-P", ""));
    expect(await text("#mapping [data-key=P]")).toBe(String(expected.plan.mapping.P));
  });

  it("shows a malformed document's diagnostic at its line and column, highlighted", async () => {
    const sum = (engine.call({ command: "cases" }).cases as { name: string; text: string }[]).find((c) => c.name === "sum")!.text;
    const bad = sum.replace('"name": "sum"', '"name" "sum"'); // a missing colon, mid-line
    const offset = bad.indexOf('"name" "sum"') + '"name" '.length;
    await replanned(async () => {
      await page.focus("#document");
      await page.keyboard.press("Control+A");
      await page.keyboard.insertText(bad); // what a paste does: one input event with the new text
    });
    expect(await page.inputValue("#document")).toBe(bad);
    const d = engine.call({ command: "plan", document: bad, options: { sizes: {}, cacheInput: true, fuse: true, candidates: true } }).diagnostics[0];
    expect(d).toMatchObject({ code: "TIR001", line: 3, column: 10 });
    expect(await page.getAttribute("#diagnostics li", "data-code")).toBe("TIR001");
    expect(await text("#diagnostics .message")).toBe(d.message);
    expect(await text("#diagnostics .where")).toBe("line 3, column 10");
    // The mark covers the string token where the colon was expected.
    expect(await text("#mirror mark")).toBe('"sum"');
    expect(await page.$eval("#mirror", (m) => (m.firstChild as Text).data)).toBe(bad.slice(0, offset));
    expect(await text("#realization")).toBe("No plan: see the diagnostics.");
    expect(await text("#msl")).toBe("Nothing emitted: the document was not planned.");
    await shot("04-malformed-json.png");
    await page.click("#diagnostics button.show");
    expect(await page.$eval("#document", (t) => [(t as HTMLTextAreaElement).selectionStart, (t as HTMLTextAreaElement).selectionEnd])).toEqual([offset, offset + 5]);

    // At the end of a line the mark falls back to the character before the line break.
    const comma = '{\n  "tile": 1,,\n}';
    await replanned(() => page.fill("#document", comma));
    expect(await text("#diagnostics .where")).toBe("line 2, column 13");
    expect(await page.$eval("#mirror", (m) => (m.firstChild as Text).data)).toBe('{\n  "tile": 1,');
    expect(await text("#mirror mark")).toBe(",");
  });

  it("shows a rejected document's JSON pointer and highlights the value it names", async () => {
    const doc = fs.readFileSync(path.join(VALIDATE_DIR, "TIR023-out-of-bounds.json"), "utf8");
    await replanned(() => page.fill("#document", doc));
    const pointer = "/body/0/body/0/body/0/value/1/2/1";
    expect(await page.getAttribute("#diagnostics li", "data-code")).toBe("TIR023");
    expect(await text("#diagnostics .pointer")).toBe(pointer);
    const marked = await text("#mirror mark");
    expect(JSON.parse(marked ?? "")).toEqual(at(JSON.parse(doc), pointer));
    expect(JSON.parse(marked ?? "")).toEqual(["add", "c", 1]);
    const start = await page.$eval("#mirror", (m) => (m.firstChild as Text).data.length);
    // the line and column shown are those of the marked value (1-based, UTF-16 code units)
    const before = doc.slice(0, start);
    expect(await text("#diagnostics .where")).toBe(`line ${before.split("\n").length}, column ${start - before.lastIndexOf("\n")}`);
    await page.click("#diagnostics button.show");
    const view = await page.$eval("#document", (t) => {
      const a = t as HTMLTextAreaElement;
      return { start: a.selectionStart, end: a.selectionEnd, scrollTop: a.scrollTop, focused: document.activeElement === a };
    });
    expect(view).toMatchObject({ start, end: start + (marked ?? "").length, focused: true });
    expect(view.scrollTop).toBeGreaterThan(0); // the value sits below the first screenful
    // The mark is inside the visible part of the editor.
    const box = await page.locator("#document").boundingBox();
    const mark = await page.locator("#mirror mark").boundingBox();
    expect(mark!.y).toBeGreaterThanOrEqual(box!.y);
    expect(mark!.y + mark!.height).toBeLessThanOrEqual(box!.y + box!.height);
    await shot("05-pointer-diagnostic.png");
  });

  it("reads and plans a dropped file", async () => {
    const doc = fs.readFileSync(path.join(ROOT, "cases", "sum.json"), "utf8");
    const transfer = await page.evaluateHandle((t) => {
      const dt = new DataTransfer();
      dt.items.add(new File([t], "my-sum.json", { type: "application/json" }));
      return dt;
    }, doc);
    await replanned(() => page.dispatchEvent("#document", "drop", { dataTransfer: transfer }));
    expect(await page.inputValue("#document")).toBe(doc);
    expect(await text("#file-name")).toBe("my-sum.json");
    expect(await page.inputValue("#case")).toBe("");
    const expected = engine.call({ command: "plan", document: doc, options: { sizes: {}, cacheInput: true, fuse: true } });
    expect(await text("#realization-name")).toBe(expected.realization);
    expect(await text("#diagnostics")).toBe("No diagnostics.");
    await shot("06-dropped-file.png");
  });

  /** Form settings and the CLI flags that mean the same. */
  const SETTINGS: { name: string; form: Record<string, string | boolean>; flags: string[]; commander: Record<string, unknown> }[] = [
    { name: "defaults", form: {}, flags: [], commander: {} },
    { name: "P=2", form: { "opt-P": "2" }, flags: ["--programs-per-group", "2"], commander: { programsPerGroup: 2 } },
    {
      name: "V=4 U=2 max 256 uncached unfused",
      form: { "opt-V": "4", "opt-U": "2", "opt-max-threads": "256", "opt-cache": false, "opt-fuse": false },
      flags: ["--vector", "4", "--unroll", "2", "--max-threads", "256", "--no-cache-input", "--no-fuse"],
      commander: { vector: 4, unroll: 2, maxThreads: 256, cacheInput: false, fuse: false },
    },
  ];

  async function setForm(form: Record<string, string | boolean>): Promise<void> {
    for (const id of ["opt-P", "opt-T", "opt-U", "opt-max-threads"]) await page.fill("#" + id, "");
    await page.selectOption("#opt-V", "");
    await page.setChecked("#opt-cache", true);
    await page.setChecked("#opt-fuse", true);
    for (const [id, v] of Object.entries(form)) {
      if (typeof v === "boolean") await page.setChecked("#" + id, v);
      else if (id === "opt-V") await page.selectOption("#" + id, v);
      else await page.fill("#" + id, v);
    }
  }

  it("agrees byte for byte with the Node engine and the CLI on every built-in case", async () => {
    const cases = engine.call({ command: "cases" }).cases as { name: string; text: string }[];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), "tile-web-cases-"));
    try {
      for (const s of SETTINGS) {
        await setForm(s.form);
        const options = await page.evaluate(() => (window as unknown as TilePage).tileOptions());
        const cli = planOptionsFrom({ size: [], cacheInput: true, fuse: true, candidates: true, ...s.commander });
        // Same keys in the same order: the page sends the very request the CLI sends.
        expect(JSON.stringify(options), s.name).toBe(JSON.stringify(cli));

        const files: string[] = [];
        const raw: Record<string, { plan: string; emit: string; shown: string | null }> = {};
        for (const c of cases) {
          await pickCase(c.name);
          const doc = await page.inputValue("#document");
          expect(doc, c.name).toBe(c.text);
          const plan = await page.evaluate(([t, o]) => (window as unknown as TilePage).tilePlan(t, o), [doc, options] as const);
          const emit = await page.evaluate(([t, o]) => (window as unknown as TilePage).tileEmit(t, o), [doc, options] as const);
          const shown = (await page.locator("#msl-text").count()) > 0 ? await text("#msl-text") : null;
          raw[c.name] = { plan, emit, shown };
          // The page's core answers exactly what the Node shell's WebAssembly engine answers.
          expect(plan, `${s.name} ${c.name} plan`).toBe(engine.callText(JSON.stringify({ command: "plan", document: doc, options: cli })));
          expect(emit, `${s.name} ${c.name} emit`).toBe(engine.callText(JSON.stringify({ command: "emit", document: doc, options: cli })));
          const file = path.join(tmp, c.name + ".json");
          fs.writeFileSync(file, doc);
          files.push(file);
        }

        // tile plan --json: the core's plan with "file" in front, for the page's case text
        // and for the repository's copy of each case in cases/.
        const planned = tile("plan", "--json", "--candidates", ...s.flags, ...files);
        expect(planned.stderr).toBe("");
        const plans = JSON.parse(planned.stdout) as any[];
        expect(plans.length).toBe(cases.length);
        const repoFiles = cases.map((c) => path.join("cases", c.name + ".json")).filter((f) => fs.existsSync(path.join(ROOT, f)));
        const repoPlans = JSON.parse(tile("plan", "--json", "--candidates", ...s.flags, ...repoFiles).stdout) as any[];
        cases.forEach((c, i) => {
          const { file, ...plan } = plans[i];
          expect(file).toBe(files[i]);
          expect(JSON.stringify(plan), `${s.name} ${c.name}`).toBe(JSON.stringify(JSON.parse(raw[c.name].plan)));
        });
        for (const p of repoPlans) {
          const { file, ...plan } = p;
          const name = path.basename(file, ".json");
          expect(JSON.stringify(plan), `${s.name} ${file}`).toBe(JSON.stringify(JSON.parse(raw[name].plan)));
        }

        // tile emit: stdout is the MSL, exactly as the page holds and shows it (the CLI's main in
        // this process, test/helpers/cli.ts; the plans above come from the spawned executable).
        for (const [i, c] of cases.entries()) {
          const e = JSON.parse(raw[c.name].emit);
          const r = await tileInProcess("emit", "--candidates", ...s.flags, files[i]);
          if (e.ok) {
            expect(r.code, `${s.name} ${c.name}`).toBe(0);
            expect(r.stdout, `${s.name} ${c.name} msl`).toBe(e.msl);
            expect(raw[c.name].shown, `${s.name} ${c.name} shown`).toBe(e.msl);
          } else {
            expect(r.code).not.toBe(0);
            expect(r.stdout).toBe("");
            expect(raw[c.name].shown).toBeNull();
          }
        }
      }
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
      await setForm({});
    }
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
