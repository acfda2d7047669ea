import { type Child, h, json, link, pre } from "./dom.js";
import { validatorOf } from "./form.js";

type Item = { [key: string]: unknown };

const MEDIA = /^[a-z]+\/[a-z0-9.+-]+$/i;

/** A data: URL for base64 media, only for a well-formed image/ or audio/ MIME type and base64 text. */
function dataUrl(kind: "image" | "audio", mimeType: unknown, data: unknown): string | undefined {
  if (typeof mimeType !== "string" || typeof data !== "string") return undefined;
  if (!MEDIA.test(mimeType) || !mimeType.toLowerCase().startsWith(`${kind}/`)) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) return undefined;
  return `data:${mimeType};base64,${data}`;
}

/** One content item, by its type: text, image, audio, resource link, embedded resource; anything else as JSON. */
export function contentItem(item: Item, onOpenUri?: (uri: string) => void): HTMLElement {
  const type = item.type;
  if (type === "text") return h("div", { class: "content text" }, pre(String(item.text ?? ""), "text"));
  if (type === "image" || type === "audio") {
    const url = dataUrl(type, item.mimeType, item.data);
    const size = typeof item.data === "string" ? Math.floor((item.data.length * 3) / 4) : 0;
    const caption = h("div", { class: "caption" }, `${type} ${String(item.mimeType)}, ${size} bytes`);
    if (url === undefined)
      return h(
        "div",
        { class: "content" },
        caption,
        h("div", { class: "error" }, "not shown: not base64 media of that type"),
      );
    const media =
      type === "image"
        ? h("img", { src: url, alt: `${type} result` })
        : h("audio", { src: url, controls: true });
    return h("div", { class: `content ${type}` }, caption, media);
  }
  if (type === "resource_link") {
    const uri = String(item.uri ?? "");
    return h(
      "div",
      { class: "content link" },
      h("span", { class: "badge" }, "resource link"),
      " ",
      h("b", null, String(item.name ?? uri)),
      " ",
      h("code", null, uri),
      item.mimeType === undefined ? null : h("span", { class: "hint" }, ` ${String(item.mimeType)}`),
      onOpenUri === undefined
        ? null
        : h("button", { type: "button", class: "small", onclick: () => onOpenUri(uri) }, "read"),
      typeof item.description === "string" ? h("div", { class: "hint" }, item.description) : null,
    );
  }
  if (type === "resource") {
    const resource = (item.resource ?? {}) as Item;
    return h(
      "div",
      { class: "content embedded" },
      h("span", { class: "badge" }, "embedded resource"),
      " ",
      h("code", null, String(resource.uri ?? "")),
      resourceBody(resource),
    );
  }
  return h(
    "div",
    { class: "content other" },
    h("span", { class: "badge" }, `unknown content ${String(type)}`),
    pre(item),
  );
}

/** A resource's contents: text as text, a blob summarised (an image blob shown). */
export function resourceBody(resource: Item): HTMLElement {
  if (typeof resource.text === "string") return pre(resource.text, "text");
  if (typeof resource.blob === "string") {
    const image = dataUrl("image", resource.mimeType, resource.blob);
    return h(
      "div",
      null,
      h(
        "div",
        { class: "caption" },
        `blob ${String(resource.mimeType ?? "")}, ${Math.floor((resource.blob.length * 3) / 4)} bytes`,
      ),
      image === undefined ? null : h("img", { src: image, alt: "resource" }),
    );
  }
  return pre(resource);
}

/** A tools/call result: error flag, the content by type, the structured content checked against the output schema. */
export function callResult(
  result: Item,
  outputSchema: unknown,
  onOpenUri?: (uri: string) => void,
): HTMLElement {
  const content = Array.isArray(result.content) ? (result.content as Item[]) : [];
  const parts: Child[] = [];
  parts.push(
    result.isError === true
      ? h("div", { class: "badge bad" }, "the tool reported an error (isError)")
      : h("div", { class: "badge ok" }, "result"),
  );
  for (const item of content) parts.push(contentItem(item, onOpenUri));
  if (result.structuredContent !== undefined) {
    let check: HTMLElement;
    if (outputSchema === undefined) check = h("span", { class: "hint" }, "no output schema");
    else {
      const errors = validatorOf(outputSchema)(result.structuredContent);
      check =
        errors.length === 0
          ? h("span", { class: "badge ok" }, "matches the output schema")
          : h(
              "span",
              { class: "badge bad" },
              `does not match the output schema: ${errors.map((e) => `${e.path || "(root)"} ${e.message}`).join("; ")}`,
            );
    }
    parts.push(
      h(
        "div",
        { class: "content structured" },
        h("div", { class: "caption" }, "structured content ", check),
        pre(result.structuredContent),
      ),
    );
  }
  if (content.length === 0 && result.structuredContent === undefined) parts.push(pre(result));
  return h("div", { class: "result" }, parts);
}

/** A resources/read result. */
export function readResult(result: Item): HTMLElement {
  const contents = Array.isArray(result.contents) ? (result.contents as Item[]) : [];
  return h(
    "div",
    { class: "result" },
    contents.map((c) =>
      h(
        "div",
        { class: "content" },
        h("code", null, String(c.uri ?? "")),
        c.mimeType === undefined ? null : h("span", { class: "hint" }, ` ${String(c.mimeType)}`),
        resourceBody(c),
      ),
    ),
  );
}

/** A prompts/get result: each message with its role. */
export function promptResult(result: Item): HTMLElement {
  const messages = Array.isArray(result.messages) ? (result.messages as Item[]) : [];
  return h(
    "div",
    { class: "result" },
    typeof result.description === "string" ? h("div", { class: "hint" }, result.description) : null,
    messages.map((m) =>
      h(
        "div",
        { class: "message" },
        h("span", { class: "badge" }, String(m.role)),
        contentItem((m.content ?? {}) as Item),
      ),
    ),
  );
}

export { json, link };
