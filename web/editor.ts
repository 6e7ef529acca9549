// The document editor: a textarea over a mirrored <pre> that paints the highlighted range.
// The mirror has the textarea's font, padding and (no) wrapping, and follows its scrolling,
// so a <mark> in the mirror sits exactly under the characters it covers.
import { TextRange } from "./locate";

export class Editor {
  private highlighted: TextRange | null = null;

  constructor(readonly textarea: HTMLTextAreaElement, private readonly mirror: HTMLElement) {
    textarea.addEventListener("scroll", () => this.followScroll());
    textarea.addEventListener("input", () => this.paint());
  }

  get text(): string {
    return this.textarea.value;
  }

  set text(value: string) {
    this.textarea.value = value;
    this.textarea.scrollTop = 0;
    this.textarea.scrollLeft = 0;
    this.highlighted = null;
    this.paint();
  }

  /** Paints a range (or none); the range is dropped if the text no longer covers it. */
  highlight(range: TextRange | null): void {
    this.highlighted = range;
    this.paint();
  }

  /** Selects the highlighted range in the textarea and scrolls it into view. */
  reveal(): void {
    const r = this.highlighted;
    if (r === null) return;
    this.textarea.focus();
    this.textarea.setSelectionRange(r.start, r.end);
    const mark = this.mirror.querySelector("mark");
    if (mark instanceof HTMLElement) {
      this.textarea.scrollTop = Math.max(0, mark.offsetTop - this.textarea.clientHeight / 3);
      this.textarea.scrollLeft = Math.max(0, mark.offsetLeft - this.textarea.clientWidth / 3);
    }
    this.followScroll();
  }

  private paint(): void {
    const text = this.textarea.value;
    const r = this.highlighted;
    // The trailing newline keeps a final empty line as tall as the textarea's.
    if (r === null || r.end > text.length || r.start >= r.end) {
      this.mirror.replaceChildren(text + "\n");
    } else {
      const mark = document.createElement("mark");
      mark.textContent = text.slice(r.start, r.end);
      this.mirror.replaceChildren(text.slice(0, r.start), mark, text.slice(r.end) + "\n");
    }
    this.followScroll();
  }

  private followScroll(): void {
    this.mirror.scrollTop = this.textarea.scrollTop;
    this.mirror.scrollLeft = this.textarea.scrollLeft;
  }
}
