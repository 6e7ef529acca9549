// What a legality rule sees: the document, its recognized structure, the device, and the mapping
// under test (for packing: P, S, T, the logical program count and the cached buffers).

import { Doc, Stmt } from "../ir/ast";
import { AffineEnv, Affine, affineOf } from "../ir/affine";
import { Structure } from "../analysis/structure";
import { Device } from "../device/device";
import { Mapping } from "../plan/plan";
import { Facts, collectFacts } from "./facts";
import { evalConstI32 } from "../analysis/consts";

export class LegalityContext {
  doc: Doc;
  structure: Structure;
  device: Device;
  /** Programs per group, SIMD groups per program, threads per group. */
  P: i32 = 1;
  S: i32 = 1;
  T: i32 = 32;
  /** Programs on lanes (Mapping.lanes): one threadgroup partial per worker. */
  lanes: bool = false;
  /** Logical programs: the constant extent of the program loop (0 when not constant). */
  programs: i32 = 0;
  /** Buffers whose stripes the plan keeps in registers. */
  cacheBuffers: Array<string> = new Array<string>();
  /** Cap on threads per group from the request (0: the device limit only). */
  maxThreads: i32 = 0;
  private memo: Facts | null = null;

  constructor(doc: Doc, structure: Structure, device: Device) {
    this.doc = doc;
    this.structure = structure;
    this.device = device;
    this.programs = programCount(doc, structure);
  }

  /** The program loop the facts are collected with: a reduction's, none for other families. */
  private factsLoop(): Stmt | null {
    return this.structure.family == "reduction" ? this.structure.programLoop : null;
  }

  /** Takes facts collected elsewhere (the pipeline's write-conflict check) when they were collected
   *  for this document, program loop and roles, i.e. are what facts() would collect; says whether. */
  useFacts(f: Facts): bool {
    const same = f.doc === this.doc && f.programLoop === this.factsLoop() && f.roles === this.structure.distribution;
    if (same) this.memo = f;
    return same;
  }

  /** Accesses of the document, computed once per context. */
  facts(): Facts {
    const m = this.memo;
    if (m !== null) return changetype<Facts>(m);
    const f = collectFacts(this.doc, this.factsLoop(), this.structure.distribution);
    this.memo = f;
    return f;
  }
}

/** The constant extent of the program loop, or 0 when there is none or it is not constant. */
export function programCount(doc: Doc, structure: Structure): i32 {
  const pl = structure.programLoop;
  if (pl === null) return 0;
  const loop = changetype<Stmt>(pl);
  const e = evalConstI32(loop.extent, doc, 0);
  if (e.ok) return e.value < 0 ? 0 : e.value;
  const env = new AffineEnv();
  for (let i: i32 = 0; i < doc.sizeNames.length; i++) {
    env.constNames.push(doc.sizeNames[i]);
    env.constValues.push(doc.sizeValues[i]);
  }
  const a = affineOf(loop.extent, env, 0);
  if (a === null) return 0;
  const x = changetype<Affine>(a);
  if (!x.isConst() || x.c < 0.0 || x.c > 2147483647.0) return 0;
  return i32(x.c);
}

/** A packing context for P programs per group, S SIMD groups per program, T threads per group. */
export function packingContext(doc: Doc, structure: Structure, device: Device, P: i32, S: i32, T: i32, cacheBuffers: Array<string>, maxThreads: i32): LegalityContext {
  const ctx = new LegalityContext(doc, structure, device);
  ctx.P = P;
  ctx.S = S;
  ctx.T = T;
  ctx.cacheBuffers = cacheBuffers;
  ctx.maxThreads = maxThreads;
  return ctx;
}

/** A context for a planned mapping (P, S, T, programs and cached buffers taken from it). */
export function contextForMapping(doc: Doc, structure: Structure, device: Device, m: Mapping, maxThreads: i32): LegalityContext {
  const ctx = packingContext(doc, structure, device, m.P, m.S, m.T, m.cached ? m.cacheBuffers : new Array<string>(), maxThreads);
  ctx.lanes = m.lanes;
  if (m.programs > 0) ctx.programs = m.programs;
  return ctx;
}
