import { h } from "./dom.js";

/**
 * A list that renders only the rows in view (plus a margin), so 10,000 tools or wire messages scroll as fast
 * as ten: rows have a fixed height and are absolutely placed inside a spacer of the full height.
 */
export class VirtualList<T> {
  readonly element: HTMLDivElement;
  private readonly spacer: HTMLDivElement;
  private items: readonly T[] = [];
  private frame = 0;

  constructor(
    private readonly rowHeight: number,
    private readonly renderRow: (item: T, index: number) => HTMLElement,
    className = "vlist",
  ) {
    this.spacer = h("div", { class: "vspacer" });
    this.element = h("div", { class: className, role: "list" }, this.spacer);
    this.element.addEventListener("scroll", () => this.schedule());
    new ResizeObserver(() => this.schedule()).observe(this.element);
  }

  get length(): number {
    return this.items.length;
  }

  /** Shows `items` (kept by reference: call again after a change). */
  set(items: readonly T[], keepScroll = true): void {
    this.items = items;
    if (!keepScroll) this.element.scrollTop = 0;
    this.render();
  }

  /** Scrolls to the end (a log that follows). */
  scrollToEnd(): void {
    this.element.scrollTop = this.element.scrollHeight;
  }

  private schedule(): void {
    if (this.frame !== 0) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.render();
    });
  }

  private render(): void {
    const height = this.element.clientHeight || 600;
    const first = Math.max(0, Math.floor(this.element.scrollTop / this.rowHeight) - 10);
    const last = Math.min(
      this.items.length,
      Math.ceil((this.element.scrollTop + height) / this.rowHeight) + 10,
    );
    this.spacer.style.height = `${this.items.length * this.rowHeight}px`;
    const rows: HTMLElement[] = [];
    for (let i = first; i < last; i++) {
      const row = this.renderRow(this.items[i] as T, i);
      row.classList.add("vrow");
      row.style.top = `${i * this.rowHeight}px`;
      row.style.height = `${this.rowHeight}px`;
      row.setAttribute("role", "listitem");
      rows.push(row);
    }
    this.spacer.replaceChildren(...rows);
  }
}
