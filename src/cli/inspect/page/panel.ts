import { type Child, h } from "./dom.js";

/** A "refresh" button that runs `load` (its failure is shown by `load` itself). */
export function refreshButton(load: () => Promise<void>): HTMLElement {
  return h("button", { type: "button", class: "small", onclick: () => void load() }, "refresh");
}

/** A filter box with a refresh button beside it, for the top of a side column. */
export function filterBar(filter: HTMLElement, load: () => Promise<void>): HTMLElement {
  return h("div", { class: "bar" }, filter, refreshButton(load));
}

/** A tab laid out as a side column and a detail pane: `splitPanel([refreshButton(load), list], detail)`. */
export function splitPanel(side: Child[], detail: HTMLElement): HTMLElement {
  return h("section", { class: "split" }, h("div", { class: "side" }, side), detail);
}
