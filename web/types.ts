// The shapes of the core's responses that the page reads (see core/plan/json.ts and
// core/api.ts). Fields the page does not show are left out.

export interface Diagnostic {
  code: string;
  id?: string;
  severity: string;
  message: string;
  pointer: string;
  line?: number;
  column?: number;
  related?: string;
}

export interface Rule {
  id: string;
  verdict: string;
  reason: string;
  pointer: string;
  violations: { reason: string; pointer: string }[];
}

export interface Cost {
  total: number;
  terms: Record<string, number>;
}

export type Mapping = Record<string, number | boolean | string[]>;

export interface Candidate {
  mapping: Mapping;
  admissible: boolean;
  failed: string[];
  cost: Cost;
  note?: string;
}

export interface Plan {
  name: string;
  ok: boolean;
  family: string;
  realization: string;
  kernel: string;
  mapping: Mapping;
  dispatch: { groups: number; threads: number; threadgroupMemory: number; threadgroupBytes: number[] };
  bindings: { kind: string; index: number; name: string; access: string; bytes: number }[];
  rules: Rule[];
  rejections: { realization: string; failed: string[]; message: string }[];
  notes: string[];
  cost: Cost;
  candidates?: Candidate[];
  diagnostics: Diagnostic[];
}

export interface Audit {
  ok: boolean;
  realization: string;
  barriers: number;
  expectedBarriers: number;
  collectives: number;
  deviceStores: number;
  predicatedStores: number;
  findings: { check: string; line: number; message: string }[];
}

export interface Emitted {
  ok: boolean;
  failedAt: string;
  plan: Plan;
  msl: string;
  audit: Audit | null;
  diagnostics: Diagnostic[];
}

export interface BuiltinCase {
  name: string;
  ok: boolean;
  text: string;
}

/** The request options, in the order and with the keys the CLI sends (shell-node/src/options.ts). */
export interface PlanOptions {
  sizes: Record<string, number>;
  programsPerGroup?: number;
  threads?: number;
  vector?: number;
  unroll?: number;
  cacheInput: boolean;
  maxThreads?: number;
  fuse: boolean;
  candidates?: boolean;
}
