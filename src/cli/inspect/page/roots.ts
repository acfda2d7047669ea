import { errorLine, h, replace } from "./dom.js";
import { tracked } from "./state.js";

/** The Roots tab: the roots the client offers (`file://` URIs, one per line), sent as they change. */
export function rootsPanel(): HTMLElement {
  const area = h("textarea", { rows: 6, "aria-label": "roots", placeholder: "file:///home/me/project" });
  const message = h("div");
  const save = async () => {
    const roots = area.value
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l !== "")
      .map((uri) => ({ uri }));
    try {
      await tracked("roots/set", { roots });
      replace(
        message,
        h(
          "div",
          { class: "hint" },
          `${roots.length} roots offered; the server was told (notifications/roots/list_changed)`,
        ),
      );
    } catch (error) {
      replace(message, errorLine(error));
    }
  };
  return h(
    "section",
    null,
    h("p", { class: "hint" }, "The roots the inspector answers roots/list with."),
    area,
    h("div", { class: "bar" }, h("button", { type: "button", onclick: () => void save() }, "Set roots")),
    message,
  );
}
