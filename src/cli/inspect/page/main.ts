import "./style.css";
import { api, on, openEvents } from "./api.js";
import { dialogLayer } from "./dialogs.js";
import { type Child, errorLine, h, json, link, pre, replace } from "./dom.js";
import { historyPanel } from "./history.js";
import { MAX_NOTIFICATIONS } from "./limits.js";
import { load as loadPrompts, promptsPanel } from "./prompts.js";
import { load as loadResources, resetSubscriptions, resourcesPanel } from "./resources.js";
import { rootsPanel } from "./roots.js";
import { load as loadSkills, skillsPanel } from "./skills.js";
import { state } from "./state.js";
import { tasksPanel } from "./tasks.js";
import { load as loadTools, toolsPanel } from "./tools.js";
import { wirePanel } from "./wire.js";

type Params = { [key: string]: unknown };

const status = h("span", { class: "conn", id: "conn-state" }, "starting");
const eraSelect = h(
  "select",
  { "aria-label": "era" },
  ["auto", "2026-07-28", "2025-11-25"].map((e) => h("option", { value: e }, e)),
);
const infoBox = h("div", { class: "info", id: "server-info" });
const notices = h("ol", { class: "notifications", "aria-label": "notifications" });
const noticeCount = h("span", { class: "hint", id: "notifications-count" });
let noticesDropped = 0;
/** Shows a notification first, keeping the newest {@link MAX_NOTIFICATIONS}. */
function notice(item: HTMLElement): void {
  notices.prepend(item);
  while (notices.childElementCount > MAX_NOTIFICATIONS) {
    notices.lastElementChild?.remove();
    noticesDropped++;
    noticeCount.textContent = `the newest ${MAX_NOTIFICATIONS}: ${noticesDropped} older dropped`;
  }
}
const LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];
const levelSelect = h(
  "select",
  { "aria-label": "log level" },
  h("option", { value: "" }, "(server default)"),
  LEVELS.map((l) => h("option", { value: l }, l)),
);
levelSelect.addEventListener("change", () => {
  if (levelSelect.value === "") return;
  api("logging/setLevel", { level: levelSelect.value }).catch((error: unknown) =>
    notice(h("li", { class: "warning" }, errorLine(error))),
  );
});

const tabs: [string, HTMLElement][] = [
  ["Tools", toolsPanel()],
  ["Resources", resourcesPanel()],
  ["Prompts", promptsPanel()],
  ["Tasks", tasksPanel()],
  ["Skills", skillsPanel()],
  ["Wire", wirePanel()],
  [
    "Notifications",
    h(
      "section",
      null,
      h("div", { class: "bar" }, h("label", { class: "inline" }, "log level ", levelSelect), noticeCount),
      notices,
    ),
  ],
  ["History", historyPanel(() => show("Tools"))],
  ["Roots", rootsPanel()],
];
const nav = h(
  "nav",
  { role: "tablist" },
  tabs.map(([name]) =>
    h("button", { type: "button", role: "tab", "data-tab": name, onclick: () => show(name) }, name),
  ),
);
const main = h(
  "main",
  null,
  tabs.map(([, panel]) => panel),
);

function show(name: string): void {
  for (const [n, panel] of tabs) panel.hidden = n !== name;
  for (const button of nav.querySelectorAll("button"))
    button.setAttribute("aria-selected", String(button.dataset.tab === name));
}

async function connect(): Promise<void> {
  replace(infoBox);
  status.textContent = "connecting";
  try {
    await api("connect", { era: eraSelect.value });
  } catch (error) {
    replace(infoBox, errorLine(error));
  }
}

function renderInfo(info: Params): void {
  const caps = (info.capabilities ?? {}) as Params;
  const { extensions, ...plain } = caps;
  const server = (info.serverInfo ?? {}) as Params;
  const row = (label: string, value: Child) =>
    h("div", { class: "info-row" }, h("span", { class: "label" }, label), value);
  replace(
    infoBox,
    row("server", `${String(server.name ?? "(unnamed)")} ${String(server.version ?? "")}`),
    row("era", h("span", { id: "era" }, `${String(info.era)} (protocol ${String(info.protocolVersion)})`)),
    Array.isArray(info.supportedVersions)
      ? row("versions", (info.supportedVersions as string[]).join(", "))
      : null,
    row(
      "capabilities",
      Object.entries(plain).map(([k, v]) =>
        h(
          "span",
          { class: "cap" },
          k,
          v !== null && typeof v === "object" && Object.keys(v).length > 0 ? ` ${json(v)}` : "",
        ),
      ),
    ),
    row(
      "extensions",
      extensions === undefined
        ? "none"
        : Object.keys(extensions as Params).map((k) => h("span", { class: "cap" }, k)),
    ),
    typeof info.instructions === "string"
      ? h("details", null, h("summary", null, "instructions"), pre(info.instructions, "text"))
      : null,
  );
}

on("connection", (data) => {
  const c = data as Params;
  status.textContent = String(c.state);
  status.className = `conn ${String(c.state)}`;
  if (c.state === "connected") {
    state.info = c.info as Params;
    state.connected = true;
    renderInfo(state.info);
    resetSubscriptions();
    void loadTools();
    void loadResources();
    void loadPrompts();
    void loadSkills();
  } else if (c.state === "failed" || c.state === "closed") {
    state.connected = false;
    if (c.error !== undefined || c.exit !== undefined) {
      replace(
        infoBox,
        c.error === undefined ? null : h("div", { class: "error" }, String(c.error)),
        c.exit === undefined ? null : h("div", { class: "error" }, `the server process ${String(c.exit)}`),
        c.stderr === undefined
          ? null
          : h(
              "div",
              null,
              h("div", { class: "caption" }, "its stderr ended with"),
              pre(String(c.stderr), "text"),
            ),
      );
    }
  }
});
on("notification", (data) => {
  const n = data as Params;
  notice(
    h(
      "li",
      null,
      h("span", { class: "time" }, new Date().toISOString().slice(11, 23)),
      " ",
      h("b", null, String(n.method)),
      " ",
      h("code", null, JSON.stringify(n.params ?? {}).slice(0, 500)),
    ),
  );
});
on("warning", (data) => {
  notice(h("li", { class: "warning" }, `warning: ${String((data as Params).message)}`));
});
on("auth", (data) => {
  const a = data as Params;
  if (typeof a.url === "string") {
    const hint = h("div", { class: "hint" }, "(the same URL is in the terminal)");
    replace(infoBox, h("div", { class: "auth" }, "Log in to the server: ", link(a.url), hint));
  } else if (a.refused === true) {
    replace(infoBox, h("div", { class: "error" }, "The server's authorization URL is not https: refused."));
  }
});

const app = document.getElementById("app") as HTMLElement;
replace(
  app,
  h(
    "header",
    null,
    h("h1", null, "mcpkit inspect"),
    h("span", { class: "target", id: "target" }),
    status,
    h("label", { class: "inline" }, "era ", eraSelect),
    h("button", { type: "button", onclick: () => void connect() }, "Connect"),
  ),
  infoBox,
  nav,
  main,
  dialogLayer(),
);
show("Tools");
state.showTab = show;

const initial = await api<{ target: { kind: string; argv: string[] }; era: string; info?: Params }>("state");
state.target = initial.target;
eraSelect.value = initial.era;
(document.getElementById("target") as HTMLElement).textContent = initial.target.argv.join(" ");
openEvents((open) => {
  if (!open) status.textContent = "inspector unreachable";
});
