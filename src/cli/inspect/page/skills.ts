import { api } from "./api.js";
import { errorLine, h, pre, replace } from "./dom.js";
import { refreshButton, splitPanel } from "./panel.js";
import { VirtualList } from "./virtual-list.js";

type Params = { [key: string]: unknown };

type Row = { entry: Params } | { invalid: Params };

const count = h("div", { class: "hint", id: "skills-count" });
// Windowed like the tools: a catalogue of thousands of skills keeps a few dozen rows in the page.
const list = new VirtualList<Row>(
  44,
  (row) => {
    if ("invalid" in row) {
      return h(
        "div",
        { class: "list-row skill-row error" },
        `invalid entry: ${JSON.stringify(row.invalid).slice(0, 300)}`,
      );
    }
    const fm = (row.entry.frontmatter ?? {}) as Params;
    return h(
      "div",
      { class: "list-row skill-row", "data-skill": String(row.entry.uri) },
      h(
        "div",
        { class: "name" },
        h(
          "button",
          { type: "button", class: "link", onclick: () => void open(String(row.entry.uri)) },
          String(fm.name ?? row.entry.uri),
        ),
      ),
      h("div", { class: "desc" }, String(fm.description ?? "")),
    );
  },
  "vlist skill-list",
);
const detail = h("div", { class: "detail" }, h("div", { class: "hint" }, "choose a skill"));

/** The Skills tab: the catalogue, and each file of a skill with its digest verification status. */
export function skillsPanel(): HTMLElement {
  return splitPanel([refreshButton(load), count, list.element], detail);
}

export async function load(): Promise<void> {
  try {
    const result = await api<{ supported: boolean; skills: Params[]; invalid?: Params[] }>("skills/list");
    if (!result.supported) {
      list.set([], false);
      count.textContent = "the server does not declare the Skills extension";
      return;
    }
    const invalid = result.invalid ?? [];
    list.set(
      [...result.skills.map((entry) => ({ entry })), ...invalid.map((bad) => ({ invalid: bad }))],
      false,
    );
    count.textContent =
      result.skills.length === 0 && invalid.length === 0
        ? "no skills"
        : `${result.skills.length} skills${invalid.length === 0 ? "" : `, ${invalid.length} invalid entries`}`;
  } catch (error) {
    list.set([], false);
    replace(count, errorLine(error));
  }
}

async function open(uri: string): Promise<void> {
  replace(detail, h("div", { class: "hint" }, `loading ${uri}...`));
  try {
    const { entry, files } = await api<{ entry: Params; files: Params[] }>("skills/load", { uri });
    const listed = Array.isArray(entry.resources) ? (entry.resources as Params[]) : [];
    replace(
      detail,
      h("h2", null, uri),
      entry.resources === "dynamic"
        ? h("div", { class: "badge" }, "dynamic skill: no digests to verify")
        : null,
      files.map((file) => {
        const digest = listed.find((r) => r.uri === file.uri)?.digest;
        const badge =
          file.error !== undefined
            ? h("span", { class: "badge bad" }, `verification failed: ${String(file.error)}`)
            : file.verified === true
              ? h("span", { class: "badge ok" }, "digest verified")
              : h("span", { class: "badge" }, "not verified (dynamic)");
        return h(
          "div",
          { class: "item skill-file" },
          h("code", null, String(file.uri)),
          " ",
          badge,
          digest === undefined ? null : h("div", { class: "hint" }, String(digest)),
          typeof file.text === "string" ? pre(file.text, "text") : null,
        );
      }),
    );
  } catch (error) {
    replace(detail, h("h2", null, uri), errorLine(error));
  }
}
