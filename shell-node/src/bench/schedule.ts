// The counterbalanced order of a paired replay. In round r the cases start at case r mod n
// (the starting case rotates), and case i runs A first when (r + i) is even, else B first. Over
// an even number of rounds every case runs A-first and B-first equally often.
export interface Slot {
  case: number;
  first: "A" | "B";
}

export function roundSchedule(round: number, cases: number): Slot[] {
  const out: Slot[] = [];
  for (let k = 0; k < cases; k++) {
    const i = (round + k) % cases;
    out.push({ case: i, first: (round + i) % 2 === 0 ? "A" : "B" });
  }
  return out;
}

export function other(v: "A" | "B"): "A" | "B" {
  return v === "A" ? "B" : "A";
}
