// A small element builder: h("td", {class: "num"}, "12").
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs !== null) for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : String(c));
  }
  return el;
}

/** A table with a caption, a header row and body rows. */
export function table(caption: string, head: string[], rows: Child[][], attrs: Record<string, string> = {}): HTMLTableElement {
  return h(
    "table",
    attrs,
    h("caption", null, caption),
    h("thead", null, h("tr", null, ...head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, ...rows.map((r) => h("tr", null, ...r.map((c) => h("td", null, c))))),
  );
}

/** Replaces a section body's content. */
export function fill(id: string, ...children: Child[]): void {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`the page lacks #${id}`);
  el.replaceChildren(...children.filter((c): c is Node | string | number => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))));
}
