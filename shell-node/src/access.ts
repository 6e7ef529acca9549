// Which buffers a (canonical, parsed) Tile IR document loads and which it stores: one walk,
// visiting every statement and expression node once, shared by `tile eval` and `tile run`.

export interface Access {
  read: Set<string>;
  written: Set<string>;
}

function expr(e: unknown, read: Set<string>): void {
  if (!Array.isArray(e)) return;
  if (e[0] === "load") {
    read.add(e[1]);
    for (const i of e[2]) expr(i, read);
    return;
  }
  for (let k = 1; k < e.length; k++) expr(e[k], read);
}

function walk(list: any[], a: Access): void {
  for (const s of list) {
    if ("store" in s) a.written.add(s.store);
    for (const i of s.at ?? []) expr(i, a.read);
    for (const i of s.in ?? []) expr(i, a.read);
    for (const i of (s.over ?? []).slice(1)) expr(i, a.read);
    for (const k of ["value", "if", "step"]) if (k in s) expr(s[k], a.read);
    for (const k of ["body", "then", "else"]) if (s[k]) walk(s[k], a);
  }
}

export function bufferAccess(doc: any): Access {
  const a: Access = { read: new Set(), written: new Set() };
  walk(doc.body, a);
  return a;
}

/** Buffers the document stores, in parameter order. */
export function writtenBuffers(doc: any): string[] {
  const { written } = bufferAccess(doc);
  return doc.params.map((p: any) => p.name).filter((n: string) => written.has(n));
}
