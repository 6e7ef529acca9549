// The statistics the report uses: medians, and paired medians of per-round ratios.
// Reported figures are never differences or products of medians.

/** The median (mean of the two middle values for an even count). Empty: NaN. */
export function median(values: number[]): number {
  if (values.length === 0) return NaN;
  const s = values.slice().sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Per-dispatch values of one call list: total µs / dispatches per call. */
export function perDispatch(totals: number[], dispatches: number): number[] {
  return totals.map((t) => t / dispatches);
}

export function minMax(values: number[]): [number, number] {
  let lo = Infinity;
  let hi = -Infinity;
  for (const v of values) {
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  return [lo, hi];
}
