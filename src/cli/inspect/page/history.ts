import { cliCommand } from "./cli-command.js";
import { errorLine, h, replace } from "./dom.js";
import { checkImportSize, parseHistoryFile } from "./history-file.js";
import { MAX_HISTORY } from "./limits.js";
import { addHistory, era, state } from "./state.js";
import { select, toolNamed } from "./tools.js";
import { wireLog } from "./wire.js";

type Params = { [key: string]: unknown };

const listBox = h("ol", { class: "history" });
const message = h("div");
const count = h("div", { class: "hint", id: "history-count" });

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
    count,
    listBox,
  );
}

function draw(showTools: () => void): void {
  const { items, dropped } = state.history;
  count.textContent =
    dropped === 0
      ? `${items.length} entries`
      : `${items.length} entries (the newest ${MAX_HISTORY.toLocaleString("en")} kept: ${dropped} older dropped)`;
  replace(
    listBox,
    [...items].reverse().map((entry) => {
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
    entries: state.history.items,
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
    checkImportSize(file.size);
    const read = parseHistoryFile(await file.text(), MAX_HISTORY);
    state.history.noteDropped(read.dropped);
    addHistory(...read.entries);
    const notes = [
      read.dropped === 0
        ? ""
        : `${read.dropped} older dropped: the history keeps ${MAX_HISTORY.toLocaleString("en")}`,
      read.skipped === 0 ? "" : `${read.skipped} not entries, skipped`,
    ].filter((n) => n !== "");
    replace(
      message,
      h(
        "div",
        { class: "hint" },
        `imported ${read.entries.length} entries${notes.length === 0 ? "" : ` (${notes.join("; ")})`}`,
      ),
    );
  } catch (error) {
    replace(
      message,
      errorLine(
        new Error(`cannot import ${file.name}: ${error instanceof Error ? error.message : String(error)}`),
      ),
    );
  } finally {
    input.value = "";
  }
}
