// The audit's own arithmetic (deliberately not shared with the benchmark).
import crypto from "node:crypto";

export function sha256Hex(data: string | Uint8Array): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

/** Middle value of the sorted list; for an even count the mean of the two middle values. */
export function middle(xs: number[]): number {
  const sorted = [...xs].sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
  const n = sorted.length;
  if (n === 0) return NaN;
  const half = Math.floor(n / 2);
  if (n % 2 === 1) return sorted[half];
  return (sorted[half - 1] + sorted[half]) / 2;
}

export function lowest(xs: number[]): number {
  return xs.reduce((a, b) => (b < a ? b : a), Infinity);
}

export function highest(xs: number[]): number {
  return xs.reduce((a, b) => (b > a ? b : a), -Infinity);
}

/** Equal to a relative tolerance (both finite), or both exactly equal. */
export function close(reported: unknown, computed: number, rel = 1e-9): boolean {
  if (typeof reported !== "number") return false;
  if (reported === computed) return true;
  return Math.abs(reported - computed) <= rel * Math.max(Math.abs(reported), Math.abs(computed));
}

/** Decimals printed in a number's text ("1.234" -> 3). */
export function decimalsOf(text: string): number {
  const dot = text.indexOf(".");
  return dot < 0 ? 0 : text.length - dot - 1;
}

/** The computed value printed the way the report printed its figure. */
export function sameAsPrinted(printed: string, computed: number): boolean {
  return computed.toFixed(decimalsOf(printed)) === printed;
}
