import type { ConnectionInfo } from "../client/index.js";
import { base64ByteLength } from "../jsonrpc/base64.js";
import type {
  CallToolResult,
  CompleteResult,
  ContentBlock,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceContents,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "../protocol/types/index.js";
import { fields, oneLine, safe, table } from "./table.js";

/** Human renderings of what the commands fetch. Every string a server sent goes through `safe` or `oneLine`. */

/** `info`: who the server is, the era, its capabilities and instructions. */
export function renderInfo(info: ConnectionInfo): string {
  const server = info.serverInfo;
  const pairs: [string, string][] = [
    ["server", server === undefined ? "(not given)" : oneLine(`${server.name} ${server.version}`)],
    ["era", info.era === info.protocolVersion ? info.era : `${info.era} (protocol ${info.protocolVersion})`],
  ];
  if (info.supportedVersions !== undefined)
    pairs.push(["versions", info.supportedVersions.map(safe).join(", ")]);
  pairs.push(["capabilities", capabilityList(info.capabilities)]);
  const extensions = Object.keys(info.capabilities.extensions ?? {});
  if (extensions.length > 0) pairs.push(["extensions", extensions.map(safe).join(", ")]);
  let text = fields(pairs);
  if (info.instructions !== undefined && info.instructions.trim() !== "") {
    const lines = info.instructions
      .trim()
      .split(/\r?\n/)
      .map((line) => `  ${safe(line)}`);
    text += `instructions\n${lines.join("\n")}\n`;
  }
  return text;
}

/** `tools (listChanged), resources (subscribe, listChanged), logging, ...`. */
export function capabilityList(capabilities: ServerCapabilities): string {
  const names = ["tools", "resources", "prompts", "logging", "completions"] as const;
  const parts: string[] = [];
  for (const name of names) {
    const value = capabilities[name];
    if (value === undefined) continue;
    const flags = Object.entries(value)
      .filter(([, on]) => on === true)
      .map(([flag]) => flag);
    parts.push(flags.length > 0 ? `${name} (${flags.join(", ")})` : name);
  }
  for (const name of Object.keys(capabilities)) {
    if (!(names as readonly string[]).includes(name) && name !== "extensions") parts.push(safe(name));
  }
  return parts.length > 0 ? parts.join(", ") : "none";
}

/** `a: number, b?: string` from an input schema: required arguments bare, optional ones with `?`. */
export function argumentSummary(schema: { readonly [key: string]: unknown } | undefined): string {
  const properties = (schema?.properties ?? {}) as { [name: string]: { type?: unknown; enum?: unknown } };
  const required = new Set(Array.isArray(schema?.required) ? (schema.required as string[]) : []);
  return Object.entries(properties)
    .map(([name, property]) => {
      const type = Array.isArray(property?.enum)
        ? property.enum.map((v) => JSON.stringify(v)).join("|")
        : Array.isArray(property?.type)
          ? property.type.join("|")
          : typeof property?.type === "string"
            ? property.type
            : "any";
      return `${name}${required.has(name) ? "" : "?"}: ${type}`;
    })
    .join(", ");
}

export function renderTools(tools: readonly Tool[], width?: number): string {
  if (tools.length === 0) return "no tools\n";
  const rows = tools.map((tool) => [
    tool.name,
    argumentSummary(tool.inputSchema),
    tool.description ?? tool.title ?? "",
  ]);
  return table(["TOOL", "ARGUMENTS", "DESCRIPTION"], rows, width);
}

export function renderResources(
  resources: readonly Resource[],
  templates: readonly ResourceTemplate[],
  width?: number,
): string {
  const parts: string[] = [];
  if (resources.length === 0) parts.push("no resources\n");
  else {
    const rows = resources.map((r) => [r.uri, r.name, r.mimeType ?? "", r.description ?? r.title ?? ""]);
    parts.push(table(["URI", "NAME", "MIME TYPE", "DESCRIPTION"], rows, width));
  }
  if (templates.length > 0) {
    const rows = templates.map((t) => [
      t.uriTemplate,
      t.name,
      t.mimeType ?? "",
      t.description ?? t.title ?? "",
    ]);
    parts.push(table(["URI TEMPLATE", "NAME", "MIME TYPE", "DESCRIPTION"], rows, width));
  }
  return parts.join("\n");
}

export function renderPrompts(prompts: readonly Prompt[], width?: number): string {
  if (prompts.length === 0) return "no prompts\n";
  const rows = prompts.map((prompt) => [
    prompt.name,
    (prompt.arguments ?? []).map((a) => `${a.name}${a.required === true ? "" : "?"}`).join(", "),
    prompt.description ?? prompt.title ?? "",
  ]);
  return table(["PROMPT", "ARGUMENTS", "DESCRIPTION"], rows, width);
}

/** One content block: text as it is, the rest as a one-line summary. */
export function renderContent(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return safe(block.text);
    case "image":
    case "audio":
      return `[${block.type} ${safe(block.mimeType)}, ${base64ByteLength(block.data)} bytes]`;
    case "resource_link":
      return `[resource link ${safe(block.uri)}${block.name ? ` (${oneLine(block.name)})` : ""}]`;
    case "resource":
      return renderResourceContents(block.resource);
    default:
      return `[${safe(String((block as { type: unknown }).type))} content] ${JSON.stringify(block)}`;
  }
}

function renderResourceContents(contents: ResourceContents): string {
  if ("text" in contents && typeof contents.text === "string") return safe(contents.text);
  const blob = (contents as { blob?: string }).blob ?? "";
  return `[blob ${safe(contents.mimeType ?? "")} ${base64ByteLength(blob)} bytes: ${safe(contents.uri)}]`;
}

export function renderCallResult(result: CallToolResult): string {
  const parts = (result.content ?? []).map(renderContent);
  if (result.structuredContent !== undefined && parts.length === 0) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  return parts.length === 0 ? "(no content)\n" : endLine(parts.join("\n"));
}

export function renderReadResult(result: ReadResourceResult): string {
  const many = result.contents.length > 1;
  return result.contents
    .map(
      (contents) =>
        `${many ? `--- ${safe(contents.uri)}\n` : ""}${endLine(renderResourceContents(contents))}`,
    )
    .join("");
}

export function renderPromptResult(result: GetPromptResult): string {
  const head = result.description === undefined ? "" : `${oneLine(result.description)}\n\n`;
  return head + result.messages.map((m) => `[${safe(m.role)}] ${renderContent(m.content)}\n`).join("");
}

export function renderCompletion(result: CompleteResult): string {
  const { values, total, hasMore } = result.completion;
  const more = hasMore === true ? `(more${total === undefined ? "" : `; ${total} in all`})\n` : "";
  return values.length === 0 ? `no completions\n${more}` : `${values.map(safe).join("\n")}\n${more}`;
}

/** The text with one line end at the end (a text that has one keeps it, without a blank line after). */
function endLine(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}
