// The one catalogue of diagnostic codes. Codes are stable: never renumber, only append.
// Each entry: code, category ("error" | "warning"), short id, and what it means.
// Factories in ./diagnostic.ts take a code from here plus a sentence and a JSON pointer.

export const CODES: Array<string> = [
  // Tile IR: reading and shape of the document
  "TIR001", "error", "json-syntax", "The text is not well-formed JSON (line and column given).",
  "TIR002", "error", "document-too-large", "The document is larger than the documented limit.",
  "TIR003", "error", "nesting-too-deep", "Nesting is deeper than the documented limit.",
  "TIR004", "error", "missing-field", "A required field is missing.",
  "TIR005", "error", "unknown-field", "A field that the format does not define.",
  "TIR006", "error", "wrong-json-type", "A field holds the wrong kind of JSON value.",
  "TIR007", "error", "wrong-version", "The `tile` version is not 1.",
  "TIR008", "error", "duplicate-key", "A key appears twice in one JSON object.",
  // Tile IR: names and types
  "TIR010", "error", "unknown-name", "A name that is not in scope.",
  "TIR011", "error", "unknown-size", "A shape refers to a size that is not declared.",
  "TIR012", "error", "unknown-buffer", "A load or store names a buffer that is not a parameter.",
  "TIR013", "error", "unknown-combiner", "A reduce combiner other than sum, max, min.",
  "TIR014", "error", "unknown-dtype", "A dtype other than f32, f16, bf16 or i32.",
  "TIR015", "error", "unknown-operator", "An expression operator the format does not define.",
  "TIR016", "error", "name-bound-twice", "A binding shadows a name in scope, or a scalar name repeats.",
  "TIR017", "error", "type-mismatch", "An operand or value has the wrong type.",
  "TIR018", "error", "wrong-index-count", "An access has a different number of indices than the buffer has dimensions.",
  "TIR019", "error", "wrong-operand-count", "An operator has the wrong number of operands.",
  // Tile IR: sizes, loops, bounds
  "TIR020", "error", "non-positive-size", "A size is zero, negative or not an integer.",
  "TIR021", "error", "loop-bound-not-integer", "A loop or reduction min, extent or step is not an integer expression, or a step is not positive.",
  "TIR022", "error", "parallel-step", "A parallel loop has a step other than 1.",
  "TIR023", "error", "out-of-bounds", "An access is out of bounds for the given sizes.",
  "TIR024", "error", "literal-out-of-range", "A literal cannot be represented (i32 range, finite f32).",
  "TIR025", "error", "unknown-size-override", "A size override names a size the document does not declare.",
  "TIR026", "error", "no-parallel-loop", "The document has no parallel loop, so there is nothing to map to threads.",
  "TIR027", "error", "invalid-utf8", "The document bytes are not valid UTF-8.",
  "TIR028", "error", "duplicate-parameter", "Two parameters have the same name.",
  "TIR029", "error", "empty-name", "A size, parameter, loop, axis or scalar is named by the empty string.",
  "TIR030", "error", "loop-variable-out-of-range", "A loop or reduction variable would take a value outside the i32 range.",
  // Planning
  "TPL001", "error", "write-conflict", "Two parallel iterations provably store to the same element.",
  "TPL002", "error", "bad-option", "A plan option is out of range or inconsistent.",
  "TPL003", "warning", "fallback", "Reserved, not emitted: a rejected cheaper candidate is listed in the plan's `rejections`, and a fall back to the serial program is TPL008.",
  "TPL004", "warning", "cache-fallback", "Cached input was requested but cannot be used; the input is read uncached.",
  "TPL005", "error", "bad-device", "The device description is incomplete or invalid.",
  "TPL006", "error", "empty-program-loop", "The top-level parallel loop has no iteration (extent below 1) or a range that is not constant.",
  "TPL007", "error", "too-many-arguments", "The kernel needs more buffer or threadgroup-memory arguments than the device accepts.",
  "TPL008", "warning", "serial-fallback", "The kernel falls back to the serial program (one thread per logical program, or one thread running them all in order when they are not proven independent); the message names the cause and the change that avoids it.",
  "TPL009", "error", "request-not-honoured", "A width request (programs per group, threads, vector, unroll) cannot be honoured by any proven realization; nothing is silently replaced.",
  "TPL010", "error", "serial-refused", "The plan would fall back to the serial program and --no-serial (options.serial = false) forbids it.",
  "TPL011", "warning", "option-ignored", "A plan option has no meaning for the realization used (e.g. --programs-per-group on an element grid); it is ignored, and said so.",
  "TPL012", "warning", "no-output", "The document stores to no buffer, so its kernel has no effect that anyone can observe.",
  // Export to a host framework (emit --target mlx | torch-mps)
  "TEX001", "error", "export-in-place", "A buffer both read and written, whose initial contents may reach a result, cannot be updated in place on the target (MLX outputs are fresh arrays).",
  "TEX002", "error", "export-name-conflict", "A document name would collide with an argument the target framework declares.",
  "TEX003", "error", "export-grid-too-large", "The kernel's grid has more threads than one dispatch of the target takes.",
  "TEX004", "error", "export-no-output", "The target needs at least one output buffer.",
  "TEX005", "warning", "export-partial-output", "An output the module returns as a new zero-filled array is not proven to be stored at every element: elements the kernel does not store are 0, where tile run and --target metal keep what the buffer held.",
  // Requests to the core
  "TAPI01", "error", "bad-request", "The request to the core is malformed.",
  // Found by a shell before the core sees any text
  "TSH001", "error", "unreadable-file", "The document file cannot be read: it does not exist or is a directory.",
  "TSH002", "warning", "non-finite-outputs", "Most reference values of an output are NaN or infinite, so a pass compares little; change the inputs (--input-range) or the document.",
];

export const CODE_STRIDE: i32 = 4;

/** The short id of a code ("json-syntax"), or "" if unknown. */
export function codeId(code: string): string {
  for (let i: i32 = 0; i < CODES.length; i += CODE_STRIDE) {
    if (CODES[i] == code) return CODES[i + 2];
  }
  return "";
}

export function codeCategory(code: string): string {
  for (let i: i32 = 0; i < CODES.length; i += CODE_STRIDE) {
    if (CODES[i] == code) return CODES[i + 1];
  }
  return "error";
}
