// Reads the figures back out of results.md: one "## <case id>" section per case, and in it one
// table row per metric whose first cell names the metric in backticks:
//   | `hostBatch` ... | ratio | lo–hi | A µs | B µs | rounds |
export interface MarkdownRow {
  ratio: string;
  range: string;
  medianA: string;
  medianB: string;
  rounds: string;
}

/** case id -> metric -> row (cells as printed). */
export type MarkdownFigures = Map<string, Map<string, MarkdownRow>>;

export function readMarkdownFigures(text: string): MarkdownFigures {
  const out: MarkdownFigures = new Map();
  let current: Map<string, MarkdownRow> | null = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) {
      current = new Map();
      out.set(line.slice(3).trim(), current);
      continue;
    }
    if (current === null || !line.startsWith("|")) continue;
    const cells = line.split("|").slice(1, -1).map((c) => c.trim());
    const name = /^`([A-Za-z]+)`/.exec(cells[0] ?? "");
    if (!name || cells.length < 6) continue;
    current.set(name[1], { ratio: cells[1], range: cells[2], medianA: cells[3], medianB: cells[4], rounds: cells[5] });
  }
  return out;
}

/** "0.951–1.020" -> ["0.951", "1.020"] (en dash, or a hyphen between numbers). */
export function splitRange(text: string): [string, string] | null {
  const m = /^(-?[0-9.]+)\s*[–-]\s*(-?[0-9.]+)$/.exec(text);
  return m ? [m[1], m[2]] : null;
}
