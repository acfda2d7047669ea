import { type Child, h, json, pre, replace } from "./dom.js";
import { contentItem } from "./results.js";

type Params = { [key: string]: unknown };

/** The text of a drafted reply, for the user to replace or approve. */
export const DRAFT_TEXT = "A draft reply from mcpkit inspect.";
/** The model a draft names when the request hints none. */
export const DRAFT_MODEL = "mcpkit-inspect";
const STOP_REASONS = ["endTurn", "stopSequence", "maxTokens", "toolUse"];

const isObject = (value: unknown): value is Params =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The reply a sampling dialog starts from: the `--sampling-reply` file's when there is one, else an assistant
 * text from the first model the request hints at (or `mcpkit-inspect`) that ends its turn.
 */
export function draftReply(params: Params, fixed: unknown): Params {
  if (isObject(fixed)) return structuredClone(fixed);
  const hints = isObject(params.modelPreferences) ? params.modelPreferences.hints : undefined;
  const first = Array.isArray(hints) && isObject(hints[0]) ? hints[0].name : undefined;
  return {
    role: "assistant",
    model: typeof first === "string" && first !== "" ? first : DRAFT_MODEL,
    stopReason: "endTurn",
    content: { type: "text", text: DRAFT_TEXT },
  };
}

/** What is wrong with a reply written as JSON (as the client checks it), or undefined. */
function replyProblem(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "not JSON";
  }
  if (!isObject(value)) return "a reply is a JSON object";
  if (value.role !== "assistant" && value.role !== "user") return 'role must be "assistant" or "user"';
  if (typeof value.model !== "string") return "model must be a string";
  if (!isObject(value.content) && !Array.isArray(value.content)) return "content must be a content block";
  return undefined;
}

const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

/** What the server asked for: the system prompt, the messages, its preferences and limits, the tools offered. */
function requestView(params: Params): HTMLElement {
  const prefs = isObject(params.modelPreferences) ? params.modelPreferences : {};
  const hints = list(prefs.hints)
    .map((hint) => (isObject(hint) ? String(hint.name ?? "") : ""))
    .filter((name) => name !== "");
  const facts: string[] = [`maxTokens ${String(params.maxTokens ?? "?")}`];
  if (hints.length > 0) facts.push(`model hints ${hints.join(", ")}`);
  for (const key of ["costPriority", "speedPriority", "intelligencePriority"]) {
    if (prefs[key] !== undefined) facts.push(`${key} ${String(prefs[key])}`);
  }
  for (const key of ["temperature", "includeContext"]) {
    if (params[key] !== undefined) facts.push(`${key} ${String(params[key])}`);
  }
  if (params.stopSequences !== undefined) facts.push(`stopSequences ${json(params.stopSequences)}`);
  if (params.toolChoice !== undefined) facts.push(`toolChoice ${JSON.stringify(params.toolChoice)}`);
  const tools = list(params.tools).filter(isObject);
  return h(
    "div",
    { class: "sampling-request" },
    typeof params.systemPrompt === "string"
      ? h("div", null, h("span", { class: "badge" }, "system"), pre(params.systemPrompt, "text"))
      : null,
    list(params.messages)
      .filter(isObject)
      .map((m) =>
        h(
          "div",
          { class: "message" },
          h("span", { class: "badge" }, String(m.role)),
          (Array.isArray(m.content) ? m.content : [m.content]).map((c) => contentItem(isObject(c) ? c : {})),
        ),
      ),
    h("div", { class: "hint" }, facts.join(" · ")),
    tools.length === 0
      ? null
      : h(
          "details",
          null,
          h("summary", null, `${tools.length} tool${tools.length === 1 ? "" : "s"} offered`),
          tools.map((tool) =>
            h(
              "div",
              null,
              h(
                "div",
                { class: "sampling-tool" },
                h("code", null, String(tool.name)),
                ` ${String(tool.description ?? "")}`,
              ),
              pre(tool.inputSchema),
            ),
          ),
        ),
    isObject(params._meta) ? h("details", null, h("summary", null, "_meta"), pre(params._meta)) : null,
  );
}

/**
 * A sampling request as a dialog body: the request, then a draft reply (role, model, stop reason, text) to
 * approve as it is, edit, or edit as JSON (sent as written, once it is a reply), and Reject.
 */
export function samplingDialog(
  box: HTMLElement,
  params: Params,
  fixed: unknown,
  send: (result: Params) => void,
  reject: () => void,
): void {
  let draft = draftReply(params, fixed);
  const textOf = (reply: Params): string | undefined =>
    isObject(reply.content) && reply.content.type === "text" && typeof reply.content.text === "string"
      ? reply.content.text
      : undefined;
  const role = h(
    "select",
    { "aria-label": "role" },
    ["assistant", "user"].map((r) => h("option", { value: r }, r)),
  );
  const model = h("input", { type: "text", "aria-label": "model" });
  const stop = h("select", { "aria-label": "stop reason" });
  const text = h("textarea", { rows: 4, "aria-label": "reply text" });
  const asJson = h("textarea", { rows: 10, class: "json-args", "aria-label": "reply as JSON" });
  const problem = h("div", { class: "field-error" });
  const approve = h("button", { type: "button", class: "primary" }, "Approve");
  const toggle = h("button", { type: "button" }, "Edit as JSON");
  const form = h(
    "div",
    { class: "sampling-draft" },
    h("label", { class: "inline" }, "role ", role),
    h("label", { class: "inline" }, "model ", model),
    h("label", { class: "inline" }, "stop reason ", stop),
    h("label", null, "Reply ", text),
  );
  const jsonBox = h("div", { hidden: true }, asJson, problem);
  let jsonMode = false;

  const fromForm = (): Params => ({
    ...draft,
    role: role.value,
    model: model.value,
    stopReason: stop.value,
    content: { type: "text", text: text.value },
  });
  const fill = (reply: Params) => {
    role.value = reply.role === "user" ? "user" : "assistant";
    model.value = typeof reply.model === "string" ? reply.model : DRAFT_MODEL;
    const reason = typeof reply.stopReason === "string" ? reply.stopReason : "endTurn";
    replace(
      stop,
      [...new Set([...STOP_REASONS, reason])].map((r) => h("option", { value: r }, r)),
    );
    stop.value = reason;
    text.value = textOf(reply) ?? "";
  };
  const check = () => {
    const wrong = jsonMode ? replyProblem(asJson.value) : undefined;
    problem.textContent = wrong ?? "";
    approve.disabled = wrong !== undefined;
  };
  const showJson = (on: boolean) => {
    jsonMode = on;
    form.hidden = on;
    jsonBox.hidden = !on;
    toggle.textContent = on ? "Edit as form" : "Edit as JSON";
    check();
  };
  toggle.addEventListener("click", () => {
    if (!jsonMode) {
      asJson.value = json(fromForm());
      return showJson(true);
    }
    // Back to the form only for a reply it can show: one text block.
    if (replyProblem(asJson.value) !== undefined) return;
    const reply = JSON.parse(asJson.value) as Params;
    if (textOf(reply) === undefined) {
      problem.textContent = "the form shows a reply of one text block: keep editing it as JSON";
      return;
    }
    draft = reply;
    fill(draft);
    showJson(false);
  });
  asJson.addEventListener("input", check);
  approve.addEventListener("click", () => {
    if (!jsonMode) return send(fromForm());
    if (replyProblem(asJson.value) === undefined) send(JSON.parse(asJson.value) as Params);
  });

  fill(draft);
  const children: Child[] = [
    h("h3", null, "The server asks for a model reply (sampling)"),
    requestView(params),
    h("h3", null, "Your reply (a draft: edit it or approve it)"),
    form,
    jsonBox,
    h("div", { class: "bar" }, approve, toggle, h("button", { type: "button", onclick: reject }, "Reject")),
  ];
  replace(box, ...children);
  // A drafted reply the form cannot show (several blocks, an image, a tool call) starts as JSON.
  if (textOf(draft) === undefined) {
    asJson.value = json(draft);
    showJson(true);
  }
}
