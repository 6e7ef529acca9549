// Locating the repository's inputs: built-in cases, fixture folders, built artefacts.
import fs from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(__dirname, "..", "..");
export const CASES_DIR = path.join(ROOT, "cases");
export const FIXTURES_DIR = path.join(ROOT, "test", "fixtures");
export const VALIDATE_DIR = path.join(FIXTURES_DIR, "validate");
export const DIST_DIR = path.join(ROOT, "dist");

/** Names of files in `dir` ending in `ext`, sorted by code unit (never the default sort: the
 *  AssemblyScript portable shim replaces Array.prototype.sort's default comparator). */
export function listFiles(dir: string, ext: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(ext))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every file under `dir` (recursively) ending in `ext`, as absolute paths, sorted. */
export function listFilesDeep(dir: string, ext: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(ext)) out.push(p);
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export interface BuiltinCaseFile {
  name: string;
  file: string;
  text: string;
}

export function caseFiles(): BuiltinCaseFile[] {
  return listFiles(CASES_DIR, ".json").map((f) => ({
    name: f.slice(0, -5),
    file: path.join(CASES_DIR, f),
    text: fs.readFileSync(path.join(CASES_DIR, f), "utf8"),
  }));
}

/** What a validate fixture expects (test/fixtures/validate/<name>.expect.json). */
export interface ValidateExpectation {
  /** The diagnostic code of the first diagnostic, or absent for a valid document. */
  code?: string;
  pointer?: string;
  line?: number;
  column?: number;
  related?: string;
  /** Number of diagnostics (default 1 when `code` is given, 0 otherwise). */
  count?: number;
  /** Size overrides sent as options.sizes. */
  sizes?: Record<string, number>;
  /** Pad the document with trailing spaces to this many characters (for the size limit). */
  padTo?: number;
}

export interface ValidateFixture {
  name: string;
  file: string;
  text: string;
  expect: ValidateExpectation;
  expectFile: string;
}

export function validateFixtures(): ValidateFixture[] {
  return listFiles(VALIDATE_DIR, ".json")
    .filter((f) => !f.endsWith(".expect.json"))
    .map((f) => {
      const file = path.join(VALIDATE_DIR, f);
      const expectFile = file.slice(0, -5) + ".expect.json";
      const expect = fs.existsSync(expectFile) ? (JSON.parse(fs.readFileSync(expectFile, "utf8")) as ValidateExpectation) : {};
      return { name: f.slice(0, -5), file, text: fs.readFileSync(file, "utf8"), expect, expectFile };
    });
}

/** The document text a fixture stands for (padded when it tests the size limit). */
export function fixtureDocument(f: ValidateFixture): string {
  const pad = f.expect.padTo ?? 0;
  return f.text.length < pad ? f.text + " ".repeat(pad - f.text.length) : f.text;
}
