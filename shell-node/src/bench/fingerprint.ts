// Fingerprints of what produced the numbers: the core builds, the native library, the protocol,
// every MSL source and plan, and the machine.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Fingerprint } from "./results";

/** The core builds a run depends on, relative to the repository root. */
export const CORE_ARTIFACTS = ["dist/tile-core.wasm", "dist/tile-core.small.wasm", "dist/tile-core.mjs"];

export function sha256(data: string | Uint8Array): string {
  return crypto.createHash("sha256").update(data).digest("hex");
}

export function fingerprint(root: string, rel: string): Fingerprint {
  const bytes = fs.readFileSync(path.join(root, rel));
  return { path: rel, sha256: sha256(bytes), bytes: bytes.length };
}

/** The core builds and the native library (given as an absolute path). */
export function artifactFingerprints(root: string, nativeLibrary: string): Fingerprint[] {
  return [...CORE_ARTIFACTS, path.relative(root, nativeLibrary)].map((rel) => fingerprint(root, rel));
}

export interface Machine {
  os: string;
  arch: string;
  cpu: string;
  cores: number;
  memoryBytes: number;
  node: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  return {
    os: `${os.type()} ${os.release()} (${process.platform})`,
    arch: process.arch,
    cpu: cpus.length ? cpus[0].model : "unknown",
    cores: cpus.length,
    memoryBytes: os.totalmem(),
    node: process.version,
  };
}
