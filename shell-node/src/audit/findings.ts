// The audit's catalogue of findings. The audit is written independently of the benchmark: it
// imports only node builtins and the files in this folder, and reads results.json as data.
//
// Terms. The protocol is the JSON text embedded in results.protocol.text (its sha256 must match
// the recorded one). A "slot" is (round, case, variant). A case is identified by its built-in
// name plus its sizes; results.cases maps that to the id the runs use. An "expected metric" is one
// the protocol lists, except the two GPU metrics when the runtime is not a GPU runtime. Whether it
// is one is derived, never read from runtime.timesAreGpu: the runtime kind must be a GPU kind
// (metal, cuda; host never is) and runtime.library must be that kind's library
// (libtile_<kind>.*), fingerprinted among the artifacts, present under the root with that sha256,
// without the host runtime's marker and with its kind's markers (context.ts deriveGpu). A run
// "counts" (enters a figure) only when every validation check passed: `passed`, no error, guards
// "intact", and every output checked with 0 mismatches. A run is "timed" when it carries samples.
// A per-dispatch value is a raw sample (µs per call) divided by the run's dispatchesPerSample for
// that metric. The calibrated batch is re-derived from the run's trials (context.ts deriveBatch):
// 1 dispatch first, doubled (capped at maxBatch) until a trial's time reaches the protocol's
// batch window or its count reaches maxBatch; that trial's count is the batch.
export interface FindingSpec {
  id: string;
  meaning: string;
}

export const FINDINGS: FindingSpec[] = [
  {
    id: "bad-override",
    meaning:
      "results.overrides (protocol settings bounded on the command line: rounds, samples, batchWindowMs, warmup, maxBatch, metrics) names another key, holds an invalid value, or a value the recorded command line (command.argv: the flag followed by the same value) does not show. Such an override is not applied: the figures are then checked against the protocol as written.",
  },
  {
    id: "changed-artifact",
    meaning:
      "A fingerprint no longer matches what it names: a core build or the native library in results.artifacts / runtime.library whose sha256 or size differs from the file under the root now (or the file is gone); a round whose fingerprints differ from the top-level ones (so from another round's); protocol text whose sha256 differs from the recorded one or from the protocol file still on disk; a case/variant whose plan or MSL sha256 differs between rounds; or a run whose validated plan/MSL is not the one it timed.",
  },
  {
    id: "duplicate-samples",
    meaning:
      "The same raw sample list (two or more identical numbers in the same order) appears in two different places (round, case, variant, metric), or two runs claim the same slot, or two rounds share an index. Independent timings never repeat bit for bit; a repeat means copied data.",
  },
  {
    id: "failed-validation",
    meaning:
      "A run that did not pass every validation check: `passed` not true, an error, guards not \"intact\", no output checked, or an output with mismatches against the FP64 oracle (or no validation record at all). Such a run enters no figure. If it also carries samples, the message says it was timed: a timed case must have validated.",
  },
  {
    id: "gpu-from-host",
    meaning:
      "runtime.timesAreGpu disagrees with what produced the samples (derived from the runtime kind and the runtime library's fingerprint and bytes: only a metal or cuda runtime library counts), or, on a runtime that is not a GPU runtime, a GPU metric carries samples or a reported figure, lacks the recorded reason why it is unavailable, or a run was calibrated on a GPU clock. Host times must never stand in for GPU times.",
  },
  {
    id: "missing-case",
    meaning:
      "A case the protocol lists (name + sizes) is absent from results.cases, or some round of the results has no run for it under variant A or B.",
  },
  {
    id: "missing-source",
    meaning:
      "A run names an MSL sha256 with no source text in results.sources (or a text whose sha256 is not its key), or a plan sha256 with no plan in results.plans (or a plan whose sha256 of its JSON text is not its key), or no plan/source at all.",
  },
  {
    id: "partial-output",
    meaning:
      "The output stops short of what the protocol requires: a required top-level section missing (format, command, protocol, machine, runtime, artifacts, cases, variants, rounds, sources, plans, summary); fewer rounds than the protocol's; a validated run that was not timed; a timed run with fewer samples than the protocol's `samples` for an expected metric (or no dispatch count); a case or expected metric missing from the summary; results.md missing, or without a section for a case or a row for a metric.",
  },
  {
    id: "unbalanced-order",
    meaning:
      "The number of rounds is odd, or some case ran A before B (by the runs' positions in the round) a different number of times than B before A, or a round's recorded order/first-variant disagrees with the positions of its runs.",
  },
  {
    id: "unexpected-plan",
    meaning: "A plan does not show the mapping fields the variant's `expect` names (e.g. P or W): the comparison is not the one the protocol claims.",
  },
  {
    id: "wrong-denominator",
    meaning:
      "A reported ratio is not B/A of the recomputed values: a per-round ratio not equal to (B's round median)/(A's round median), a reported ratio not the median of those, a range not their min–max (in results.json to 1e-9 relative, in results.md to its printed precision); or a batch metric whose dispatches per sample differ from the batch re-derived from the run's calibration trials (a single-call metric: from 1), or calibration trials that do not follow the documented doubling rule, or a recorded batch that is not what they give.",
  },
  {
    id: "wrong-median",
    meaning:
      "A reported absolute figure is not the recomputed one: a per-round median (of per-dispatch values) or a median of round medians in results.json (1e-9 relative) or results.md (printed precision).",
  },
];

export interface Finding {
  id: string;
  where: string;
  message: string;
}

export function finding(id: string, where: string, message: string): Finding {
  if (!FINDINGS.some((f) => f.id === id)) throw new Error(`audit: unknown finding id ${id}`);
  return { id, where, message };
}
