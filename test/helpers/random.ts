// A small seeded generator (xorshift32) so that randomised tests are reproducible.

export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed | 0 || 0x9e3779b9 | 0;
  }

  /** A 32-bit unsigned integer. */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x | 0;
    return this.state >>> 0;
  }

  /** An integer in [0, n). */
  below(n: number): number {
    return this.next() % n;
  }

  pick<T>(list: readonly T[]): T {
    return list[this.below(list.length)];
  }
}

const NOISE = '{}[]",:0123456789-.eE+ \n\t\\uf';

/** `text` with 1..4 random edits: delete a run, duplicate a slice, swap two characters, insert noise. */
export function mutateText(text: string, rng: Rng): string {
  let s = text;
  const edits = 1 + rng.below(4);
  for (let k = 0; k < edits; k++) {
    const p = rng.below(s.length + 1);
    const op = rng.below(4);
    if (op === 0) {
      s = s.slice(0, p) + s.slice(p + 1 + rng.below(8));
    } else if (op === 1) {
      const q = rng.below(s.length);
      s = s.slice(0, p) + s.slice(q, q + 1 + rng.below(12)) + s.slice(p);
    } else if (op === 2) {
      const q = rng.below(s.length);
      const chars = s.split("");
      const t = chars[p];
      chars[p] = chars[q];
      chars[q] = t;
      s = chars.join("");
    } else {
      s = s.slice(0, p) + NOISE[rng.below(NOISE.length)] + s.slice(p);
    }
  }
  return s;
}

const ATOMS: unknown[] = [
  0, 1, -1, 7, 2147483647, -2147483648, 2147483648, 1.5, "r", "c", "C", "R", "X", "Y", "m", "s", "zz",
  true, null, [], {}, ["f32", 1.5], ["f32", 3.4028235e38], ["f32", 1e-45], ["lt", "c", "C"], ["add", "c", 1],
  ["sub", "c", 1], ["load", "X", ["r", "c"]], ["cast", "i32", ["f32", 2]], ["mod", "c", 3], ["neg", "r"],
];

function containers(v: unknown, out: object[]): object[] {
  if (v !== null && typeof v === "object") {
    out.push(v);
    for (const x of Array.isArray(v) ? v : Object.values(v)) containers(x, out);
  }
  return out;
}

const clone = <T>(x: T): T => JSON.parse(JSON.stringify(x));

/** A JSON value tree with 1..3 structural edits (drop, duplicate, replace or swap a member). */
export function mutateTree(doc: unknown, rng: Rng): unknown {
  const d = clone(doc);
  const edits = 1 + rng.below(3);
  for (let k = 0; k < edits; k++) {
    const all = containers(d, []);
    const n = rng.pick(all) as any;
    if (Array.isArray(n)) {
      if (n.length === 0) {
        n.push(clone(rng.pick(ATOMS)));
        continue;
      }
      const p = rng.below(n.length);
      const op = rng.below(4);
      if (op === 0) n.splice(p, 1);
      else if (op === 1) n.splice(p, 0, clone(n[rng.below(n.length)]));
      else if (op === 2) n[p] = clone(rng.pick(ATOMS));
      else {
        const q = rng.below(n.length);
        const t = n[p];
        n[p] = n[q];
        n[q] = t;
      }
    } else {
      const keys = Object.keys(n);
      if (keys.length === 0) continue;
      const key = rng.pick(keys);
      const op = rng.below(3);
      if (op === 0) delete n[key];
      else if (op === 1) n[key] = clone(rng.pick(ATOMS));
      else n[key] = clone(rng.pick(all));
    }
  }
  return d;
}
