import { idiv } from "./text";

// "Did you mean": the nearest known name to a misspelt one, by optimal-string-alignment edit
// distance (insertions, deletions, substitutions and adjacent transpositions), ignoring case
// for a tie-break-free first pass. A suggestion is made only when the distance is at most
// max(1, length / 3), or when one name is a prefix of the other (at least 3 characters), so
// unrelated names are not offered. Ties go to the earliest candidate.

/** Edit distance between a and b (optimal string alignment), compared case-insensitively. */
export function editDistance(a0: string, b0: string): i32 {
  const a = a0.toLowerCase();
  const b = b0.toLowerCase();
  const n: i32 = a.length;
  const m: i32 = b.length;
  const w: i32 = m + 1;
  const d = new Array<i32>((n + 1) * w);
  for (let i: i32 = 0; i <= n; i++) d[i * w] = i;
  for (let j: i32 = 0; j <= m; j++) d[j] = j;
  for (let i: i32 = 1; i <= n; i++) {
    for (let j: i32 = 1; j <= m; j++) {
      const cost: i32 = a.charCodeAt(i - 1) == b.charCodeAt(j - 1) ? 0 : 1;
      let best: i32 = d[(i - 1) * w + j] + 1;
      const ins: i32 = d[i * w + j - 1] + 1;
      if (ins < best) best = ins;
      const sub: i32 = d[(i - 1) * w + j - 1] + cost;
      if (sub < best) best = sub;
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) == b.charCodeAt(j - 2) && a.charCodeAt(i - 2) == b.charCodeAt(j - 1)) {
        const tr: i32 = d[(i - 2) * w + j - 2] + 1;
        if (tr < best) best = tr;
      }
      d[i * w + j] = best;
    }
  }
  return d[n * w + m];
}

/** The candidate nearest to `name`, or "" when none is close enough (or `name` is one). */
export function nearest(name: string, candidates: Array<string>): string {
  let limit: i32 = idiv(name.length, 3);
  if (limit < 1) limit = 1;
  let best = "";
  let bestD: i32 = limit + 1;
  for (let i: i32 = 0; i < candidates.length; i++) {
    const c = candidates[i];
    if (c == name) return "";
    let dist = editDistance(name, c);
    // an abbreviation or an extension of a known name ("maximum" for "max") counts as close
    if (dist > limit && c.length >= 3 && name.length >= 3 && (name.toLowerCase().startsWith(c.toLowerCase()) || c.toLowerCase().startsWith(name.toLowerCase()))) dist = limit;
    if (dist < bestD) {
      bestD = dist;
      best = c;
    }
  }
  return best;
}

/** " Did you mean \"x\"?" or "". */
export function didYouMean(name: string, candidates: Array<string>): string {
  const n = nearest(name, candidates);
  return n.length > 0 ? " Did you mean \"" + n + "\"?" : "";
}

/** Common operators Tile IR does not have, each with how to write it (x is the operand). */
const RECIPES: Array<string> = [
  "sigmoid", "[\"div\", [\"f32\", 1], [\"add\", [\"f32\", 1], [\"exp\", [\"neg\", x]]]]",
  "silu", "[\"div\", x, [\"add\", [\"f32\", 1], [\"exp\", [\"neg\", x]]]]",
  "swish", "[\"div\", x, [\"add\", [\"f32\", 1], [\"exp\", [\"neg\", x]]]]",
  "relu", "[\"max\", x, [\"f32\", 0]]",
  "square", "[\"mul\", x, x]",
  "sqr", "[\"mul\", x, x]",
  "reciprocal", "[\"div\", [\"f32\", 1], x]",
  "recip", "[\"div\", [\"f32\", 1], x]",
  "rcp", "[\"div\", [\"f32\", 1], x]",
  "softplus", "[\"add\", [\"max\", x, [\"f32\", 0]], [\"log\", [\"add\", [\"f32\", 1], [\"exp\", [\"neg\", [\"abs\", x]]]]]] (log(1 + exp(x)) overflows for x > 88)",
  "gelu", "[\"mul\", [\"mul\", [\"f32\", 0.5], x], [\"add\", [\"f32\", 1], [\"tanh\", [\"mul\", [\"f32\", 0.7978846], [\"add\", x, [\"mul\", [\"f32\", 0.044715], [\"mul\", x, [\"mul\", x, x]]]]]]]] (the tanh form; see cases/gelu_pair.json)",
  "pow", "[\"exp\", [\"mul\", y, [\"log\", x]]] for x > 0, or repeated \"mul\" for a small integer power",
  "fma", "[\"add\", [\"mul\", a, b], c]",
  "mad", "[\"add\", [\"mul\", a, b], c]",
  "clamp", "[\"min\", [\"max\", x, lo], hi]",
  "where", "[\"select\", condition, a, b]",
  "if", "[\"select\", condition, a, b]",
  "exp2", "[\"exp\", [\"mul\", x, [\"f32\", 0.6931472]]]",
  "log2", "[\"div\", [\"log\", x], [\"f32\", 0.6931472]]",
  "sign", "[\"select\", [\"gt\", x, [\"f32\", 0]], [\"f32\", 1], [\"select\", [\"lt\", x, [\"f32\", 0]], [\"f32\", -1], [\"f32\", 0]]]",
];

/** How to write a well-known operator that Tile IR lacks, or "". */
export function recipeFor(op: string): string {
  const low = op.toLowerCase();
  for (let i: i32 = 0; i + 1 < RECIPES.length; i += 2) {
    if (RECIPES[i] == low) return RECIPES[i + 1];
  }
  return "";
}
