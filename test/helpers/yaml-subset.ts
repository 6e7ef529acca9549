// A reader for a strict subset of YAML, enough for a GitHub Actions workflow written plainly:
// block mappings (`key: value`, `key:` + a more indented block), block sequences (`- value`,
// `- key: value` starting a mapping), literal block scalars (`|`, `|-`), plain scalars, single-
// and double-quoted scalars, and comment lines. Anything outside the subset is an error, never a
// guess: a plain scalar that YAML could read differently (one starting with an indicator, or
// holding ": " or " #"), tabs, flow collections, anchors, aliases, tags, folded scalars. So a
// file this accepts is valid YAML and reads as YAML reads it (test/workflow.test.ts also
// compares the result with PyYAML where that is installed).
export type Yaml = string | number | boolean | null | Yaml[] | { [key: string]: Yaml };

interface Line { indent: number; text: string; no: number }

export function parseYamlSubset(source: string): Yaml {
  const lines: Line[] = [];
  source.split("\n").forEach((raw, i) => {
    if (raw.includes("\t")) throw new Error(`line ${i + 1}: a tab`);
    const text = raw.trimEnd();
    const body = text.trimStart();
    if (body === "" || body.startsWith("#")) return;
    lines.push({ indent: text.length - body.length, text: body, no: i + 1 });
  });
  const raw = source.split("\n");
  let pos = 0;

  function scalar(s: string, no: number): Yaml {
    if (s.startsWith("'")) {
      if (!/^'(?:[^']|'')*'$/.test(s)) throw new Error(`line ${no}: bad single-quoted scalar`);
      return s.slice(1, -1).replace(/''/g, "'");
    }
    if (s.startsWith('"')) {
      if (!/^"(?:[^"\\]|\\["\\nt])*"$/.test(s)) throw new Error(`line ${no}: bad double-quoted scalar`);
      return s.slice(1, -1).replace(/\\(["\\nt])/g, (_, c) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
    }
    const hash = s.indexOf(" #");
    const v = hash >= 0 ? s.slice(0, hash).trimEnd() : s;
    if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(v) || v.includes(": ") || v.endsWith(":")) throw new Error(`line ${no}: plain scalar ${JSON.stringify(v)} outside the subset`);
    if (v === "true" || v === "false") return v === "true";
    if (v === "null" || v === "~") return null;
    if (/^-?(0|[1-9][0-9]*)$/.test(v)) return Number(v);
    if (/^(yes|no|on|off|y|n)$/i.test(v)) throw new Error(`line ${no}: ${JSON.stringify(v)} means different things to YAML 1.1 and 1.2; quote it`);
    return v;
  }

  /** The literal block scalar after the line `no` (1-based), more indented than `parent`. */
  function literal(parent: number, keep: boolean): string {
    const start = lines[pos - 1].no; // the line holding `key: |`
    const out: string[] = [];
    let indent = -1;
    let i = start; // index into raw of the next line
    while (i < raw.length) {
      const r = raw[i];
      const body = r.trimStart();
      if (body !== "" && r.length - body.length <= parent) break;
      if (body !== "" && indent < 0) indent = r.length - body.length;
      out.push(body === "" ? "" : r.slice(indent));
      i++;
    }
    while (out.length && out[out.length - 1] === "") out.pop();
    while (pos < lines.length && lines[pos].no <= i) pos++;
    return out.join("\n") + (keep ? "\n" : "");
  }

  function value(rest: string, indent: number, no: number): Yaml {
    if (rest === "|" || rest === "|-") return literal(indent, rest === "|");
    if (rest !== "") return scalar(rest, no);
    if (pos < lines.length && lines[pos].indent > indent) return block(lines[pos].indent);
    if (pos < lines.length && lines[pos].indent === indent && lines[pos].text.startsWith("- ")) return block(indent);
    return null;
  }

  function mapping(indent: number, first?: { key: string; rest: string; no: number }): Yaml {
    const out: { [key: string]: Yaml } = {};
    const entry = (key: string, rest: string, no: number): void => {
      if (Object.prototype.hasOwnProperty.call(out, key)) throw new Error(`line ${no}: duplicate key ${key}`);
      out[key] = value(rest, indent, no);
    };
    if (first) entry(first.key, first.rest, first.no);
    while (pos < lines.length && lines[pos].indent === indent && !lines[pos].text.startsWith("- ")) {
      const l = lines[pos++];
      const m = /^([A-Za-z0-9_-]+):(?: (.*))?$/.exec(l.text);
      if (!m) throw new Error(`line ${l.no}: not a "key: value" line: ${l.text}`);
      entry(m[1], (m[2] ?? "").trim(), l.no);
    }
    if (pos < lines.length && lines[pos].indent > indent) throw new Error(`line ${lines[pos].no}: unexpected indentation`);
    return out;
  }

  function sequence(indent: number): Yaml[] {
    const out: Yaml[] = [];
    while (pos < lines.length && lines[pos].indent === indent && lines[pos].text.startsWith("- ")) {
      const l = lines[pos++];
      const item = l.text.slice(2).trimStart();
      const inner = indent + (l.text.length - item.length);
      const m = /^([A-Za-z0-9_-]+):(?: (.*))?$/.exec(item);
      if (m) out.push(mapping(inner, { key: m[1], rest: (m[2] ?? "").trim(), no: l.no }));
      else out.push(scalar(item, l.no));
    }
    return out;
  }

  function block(indent: number): Yaml {
    return lines[pos].text.startsWith("- ") ? sequence(indent) : mapping(indent);
  }

  if (lines.length === 0) return null;
  const doc = block(lines[0].indent);
  if (pos !== lines.length) throw new Error(`line ${lines[pos].no}: unexpected content`);
  return doc;
}
