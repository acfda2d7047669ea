import { api, on } from "./api.js";
import { errorLine, h, link, replace } from "./dom.js";
import { schemaForm } from "./form.js";
import { samplingDialog } from "./sampling.js";

type Params = { [key: string]: unknown };

const open = new Map<string, HTMLElement>();
const layer = h("div", { class: "dialogs", "aria-live": "polite" });

/** Where server requests show up: one dialog each, answered by the user. */
export function dialogLayer(): HTMLElement {
  return layer;
}

async function answer(id: string, body: Params, box: HTMLElement): Promise<void> {
  try {
    await api("dialog/answer", { id, ...body });
  } catch (error) {
    box.append(errorLine(error));
  }
}

function elicitation(id: string, params: Params): HTMLElement {
  const box = h("div", { class: "dialog", role: "dialog", "aria-label": "elicitation", "data-dialog": id });
  const message = h("p", { class: "dialog-message" }, String(params.message ?? ""));
  if (params.mode === "url") {
    const url = String(params.url ?? "");
    replace(
      box,
      h("h3", null, "The server asks you to open a URL"),
      message,
      h("div", null, link(url)),
      h(
        "div",
        { class: "bar" },
        h(
          "button",
          {
            type: "button",
            class: "primary",
            onclick: () => void answer(id, { result: { action: "accept" } }, box),
          },
          "Done",
        ),
        refusals(id, box),
      ),
    );
    return box;
  }
  const submit = h("button", { type: "button", class: "primary" }, "Accept");
  const form = schemaForm(
    params.requestedSchema,
    () => {
      submit.disabled = !form.valid();
    },
    { defaults: true },
  );
  submit.disabled = !form.valid();
  submit.addEventListener("click", () => {
    const content = form.value();
    if (content !== undefined && form.valid())
      void answer(id, { result: { action: "accept", content } }, box);
  });
  replace(
    box,
    h("h3", null, "The server asks for input"),
    message,
    form.element,
    h("div", { class: "bar" }, submit, refusals(id, box)),
  );
  return box;
}

/** The Decline and Cancel buttons of an elicitation. */
function refusals(id: string, box: HTMLElement): HTMLElement[] {
  return (["decline", "cancel"] as const).map((action) =>
    h(
      "button",
      { type: "button", onclick: () => void answer(id, { result: { action } }, box) },
      action === "decline" ? "Decline" : "Cancel",
    ),
  );
}

function sampling(id: string, params: Params, draft: unknown): HTMLElement {
  const box = h("div", { class: "dialog", role: "dialog", "aria-label": "sampling", "data-dialog": id });
  samplingDialog(
    box,
    params,
    draft,
    (result) => void answer(id, { result }, box),
    () => void answer(id, { reject: true }, box),
  );
  return box;
}

on("dialog", (data) => {
  const d = data as { id: string; kind: string; params: Params; draft?: unknown };
  if (open.has(d.id)) return;
  const box = d.kind === "sampling" ? sampling(d.id, d.params, d.draft) : elicitation(d.id, d.params);
  open.set(d.id, box);
  layer.append(box);
});
on("dialog-closed", (data) => {
  const id = String((data as Params).id);
  open.get(id)?.remove();
  open.delete(id);
});
