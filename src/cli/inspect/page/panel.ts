import { type Child, h } from "./dom.js";

/** A "refresh" button that runs `load` (its failure is shown by `load` itself). */
export function refreshButton(load: () => Promise<void>): HTMLElement {
  return h("button", { type: "button", class: "small", onclick: () => void load() }, "refresh");
}

/** A filter box with a refresh button beside it, for the top of a side column. */
export function filterBar(filter: HTMLElement, load: () => Promise<void>): HTMLElement {
  return h("div", { class: "bar" }, filter, refreshButton(load));
}

/**
 * A row of a windowed list: its name as a button that opens it (with `extra` beside it), and one line under it.
 * `attributes` give the row its class and the data attribute that names it.
 */
export function linkRow(
  attributes: { class: string; [data: string]: string },
  name: string,
  open: () => void,
  line: string,
  ...extra: Child[]
): HTMLElement {
  return h(
    "div",
    { ...attributes, class: `list-row ${attributes.class}` },
    h(
      "div",
      { class: "name" },
      h("button", { type: "button", class: "link", onclick: open }, name),
      ...extra,
    ),
    h("div", { class: "desc" }, line),
  );
}

/** A tab laid out as a side column and a detail pane: `splitPanel([refreshButton(load), list], detail)`. */
export function splitPanel(side: Child[], detail: HTMLElement): HTMLElement {
  return h("section", { class: "split" }, h("div", { class: "side" }, side), detail);
}
