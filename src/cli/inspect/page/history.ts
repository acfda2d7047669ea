import { cliCommand } from "./cli-command.js";
import { errorLine, h, replace } from "./dom.js";
import { addHistory, era, type HistoryEntry, state } from "./state.js";
import { select, toolNamed } from "./tools.js";
import { wireLog } from "./wire.js";

type Params = { [key: string]: unknown };

const listBox = h("ol", { class: "history" });
const message = h("div");

/** The History tab: what the user did, exported as JSON (with the wire log) and imported again. */
export function historyPanel(showTools: () => void): HTMLElement {
  const file = h("input", { type: "file", accept: "application/json,.json", "aria-label": "import history" });
  file.addEventListener("change", () => void importFile(file));
  state.onHistory.push(() => draw(showTools));
  return h(
    "section",
    null,
    h(
      "div",
      { class: "bar" },
      h("button", { type: "button", onclick: exportHistory }, "Export"),
      h("label", { class: "inline" }, "Import ", file),
    ),
    message,
    listBox,
  );
}

function draw(showTools: () => void): void {
  replace(
    listBox,
    [...state.history].reverse().map((entry) => {
      const command = cliCommand(state.target, entry.op, entry.params, era());
      const tool = entry.op === "tools/call" ? toolNamed(String(entry.params.name)) : undefined;
      return h(
        "li",
        { class: entry.ok ? "ok" : "failed" },
        h("span", { class: "time" }, entry.time.slice(11, 19)),
        " ",
        h("b", null, entry.op),
        entry.imported === true ? h("span", { class: "badge" }, " imported") : null,
        " ",
        h("span", { class: "hint" }, entry.summary),
        command === undefined ? null : h("div", null, h("code", { class: "cli" }, command)),
        tool === undefined
          ? null
          : h(
              "button",
              {
                type: "button",
                class: "small",
                onclick: () => {
                  showTools();
                  select(tool, (entry.params.arguments ?? {}) as Params);
                },
              },
              "load into the form",
            ),
      );
    }),
  );
}

function exportHistory(): void {
  const doc = {
    format: "mcpkit-inspect-history",
    version: 1,
    target: state.target,
    exported: new Date().toISOString(),
    entries: state.history,
    wire: wireLog(),
  };
  const url = URL.createObjectURL(new Blob([JSON.stringify(doc, null, 2)], { type: "application/json" }));
  const a = h("a", { href: url, download: "mcpkit-inspect-history.json" });
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Reads an exported history back: its entries are shown (marked imported), never run on their own. */
async function importFile(input: HTMLInputElement): Promise<void> {
  const file = input.files?.[0];
  if (file === undefined) return;
  try {
    const doc = JSON.parse(await file.text()) as { format?: unknown; entries?: unknown };
    if (doc.format !== "mcpkit-inspect-history" || !Array.isArray(doc.entries))
      throw new Error("not an mcpkit inspect history");
    let count = 0;
    for (const raw of doc.entries as Params[]) {
      if (typeof raw?.op !== "string" || typeof raw.params !== "object" || raw.params === null) continue;
      const entry: HistoryEntry = {
        time: String(raw.time ?? ""),
        op: raw.op,
        params: raw.params as Params,
        ok: raw.ok === true,
        summary: String(raw.summary ?? "").slice(0, 200),
        imported: true,
      };
      addHistory(entry);
      count++;
    }
    replace(message, h("div", { class: "hint" }, `imported ${count} entries`));
  } catch (error) {
    replace(message, errorLine(error));
  }
}
