import { McpkitError } from "../../jsonrpc/errors.js";
import type { OpenResponse } from "./requester.js";

/** The most body bytes an HTTP status error reads and quotes. */
export const MAX_STATUS_BODY_BYTES = 512;

/** Control characters (C0, C1) and line separators: the text goes into a one-line message. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

/** The most characters of it the error's message shows. */
const MAX_SHOWN_CHARS = 300;

/**
 * `TRANSPORT` for an HTTP status that carries no JSON-RPC answer. When the body is text (`text/*`, or JSON that
 * was no answer), its first {@link MAX_STATUS_BODY_BYTES} bytes are read and quoted in the message and in
 * `details.body`, control characters replaced, so a refusal that says why (a 403 naming `allowedHosts`) reaches
 * the user; the rest of the body is released. A body that cannot be read is left out.
 *
 * @example
 * throw await statusError(response, "tools/call", "forbidden"); // "... with HTTP 403: Forbidden: host ..."
 */
export async function statusError(
  response: OpenResponse,
  method: string,
  reason: string,
): Promise<McpkitError> {
  const { status } = response;
  const body = await bodyText(response);
  const details: { [key: string]: unknown } = { reason, status };
  if (body !== "") details.body = body;
  const quoted = body === "" ? "" : `: ${body}`;
  return new McpkitError("TRANSPORT", `the server answered ${method} with HTTP ${status}${quoted}`, {
    details,
  });
}

/** The start of a textual body, cleaned for a message; `""` for another media type or a failed read. */
async function bodyText(response: OpenResponse): Promise<string> {
  const media = response.mediaType;
  if (!(media.startsWith("text/") || media === "application/json" || media.endsWith("+json"))) {
    response.discard();
    return "";
  }
  let text: string;
  try {
    text = await response.textPrefix(MAX_STATUS_BODY_BYTES);
  } catch {
    return "";
  }
  const clean = text.replace(CONTROL, " ").replace(/\s+/g, " ").trim();
  return clean.length > MAX_SHOWN_CHARS ? `${clean.slice(0, MAX_SHOWN_CHARS)}...` : clean;
}
