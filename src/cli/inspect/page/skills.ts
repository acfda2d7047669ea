import { api } from "./api.js";
import { errorLine, h, pre, replace } from "./dom.js";
import { refreshButton, splitPanel } from "./panel.js";

type Params = { [key: string]: unknown };

const listBox = h("div", { class: "items" });
const detail = h("div", { class: "detail" }, h("div", { class: "hint" }, "choose a skill"));

/** The Skills tab: the catalogue, and each file of a skill with its digest verification status. */
export function skillsPanel(): HTMLElement {
  return splitPanel([refreshButton(load), listBox], detail);
}

export async function load(): Promise<void> {
  try {
    const result = await api<{ supported: boolean; skills: Params[]; invalid?: Params[] }>("skills/list");
    if (!result.supported)
      return replace(
        listBox,
        h("div", { class: "hint" }, "the server does not declare the Skills extension"),
      );
    replace(
      listBox,
      result.skills.length === 0 ? h("div", { class: "hint" }, "no skills") : null,
      result.skills.map((entry) => {
        const fm = (entry.frontmatter ?? {}) as Params;
        return h(
          "div",
          { class: "item" },
          h(
            "button",
            { type: "button", class: "link", onclick: () => void open(String(entry.uri)) },
            String(fm.name ?? entry.uri),
          ),
          h("div", { class: "hint" }, String(fm.description ?? "")),
        );
      }),
      (result.invalid ?? []).map((bad) =>
        h("div", { class: "error" }, `invalid entry: ${JSON.stringify(bad).slice(0, 300)}`),
      ),
    );
  } catch (error) {
    replace(listBox, errorLine(error));
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
