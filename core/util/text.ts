// A string builder that stays linear in both builds (AssemblyScript's join is quadratic with
// shrinkLevel >= 1, so parts are folded into chunks of bounded count).

export class Text {
  parts: Array<string> = new Array<string>();
  chunks: Array<string> = new Array<string>();

  add(s: string): Text {
    this.parts.push(s);
    if (this.parts.length >= 64) {
      this.chunks.push(this.parts.join(""));
      this.parts = new Array<string>();
    }
    return this;
  }

  line(s: string): Text {
    this.add(s);
    return this.add("\n");
  }

  toString(): string {
    if (this.chunks.length == 0) return this.parts.join("");
    const all = new Array<string>();
    for (let i: i32 = 0; i < this.chunks.length; i++) all.push(this.chunks[i]);
    all.push(this.parts.join(""));
    return all.join("");
  }
}

/** Integer division truncating toward zero, identical in both builds (b != 0). */
export function idiv(a: i32, b: i32): i32 {
  return i32(a / b);
}

/** Floor division for b > 0. */
export function floorDiv(a: i32, b: i32): i32 {
  const q: i32 = i32(a / b);
  return (q * b > a) ? q - 1 : q;
}

/** Ceiling division for b > 0, without the overflow of a + b - 1 (identical in both builds). */
export function ceilDiv(a: i32, b: i32): i32 {
  const q: i32 = i32(a / b);
  return q * b < a ? q + 1 : q;
}
