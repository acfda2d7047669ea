/**
 * One HTTP exchange of the fuzz, over `node:http` (any method, any header, a body sent whole or chunked), and the
 * reading of its answer: the status, the JSON-RPC answer class and id of a JSON or SSE body, and what does not
 * belong (a body on a 202, two responses in one answer).
 */
import http from "node:http";
import { answerOf } from "./answers.mjs";

/**
 * Sends `input`. Resolves `{ status, headers, body }`, or `{ error: "timeout" | "lost", message }`. With
 * `keepOpen`, an SSE answer that stays open (a GET stream, a listen) resolves at its head (a listen: at its first
 * event) and carries `stream`, to be destroyed by the caller.
 */
export function send({ agent, base }, input, sessionHeader, deadlineMs, keepOpen = false) {
  return new Promise((resolve) => {
    let settled = false;
    const headers = { ...input.headers };
    if (headers.host === undefined) headers.host = base.host;
    if (sessionHeader !== undefined) headers["mcp-session-id"] = sessionHeader;
    const body = input.body;
    if (body && !input.chunked) headers["content-length"] = String(body.length);
    let request;
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const timer = setTimeout(() => {
      finish({ error: "timeout", message: `no answer within ${deadlineMs} ms` });
      request?.destroy();
    }, deadlineMs);
    try {
      request = http.request({
        host: base.hostname,
        port: base.port,
        path: input.path,
        method: input.method,
        headers,
        agent,
      });
    } catch (error) {
      finish({ error: "lost", message: `the client refused the request: ${error.message}` });
      return;
    }
    request.on("error", (error) => finish({ error: "lost", message: error.message }));
    request.on("response", (response) => {
      const head = { status: response.statusCode, headers: response.headers };
      const chunks = [];
      const sse = String(response.headers["content-type"] ?? "").startsWith("text/event-stream");
      const open = keepOpen && response.statusCode === 200 && sse;
      response.on("data", (chunk) => {
        chunks.push(chunk);
        if (!open) return;
        const text = Buffer.concat(chunks).toString("utf8");
        // A GET stream is checked at its head; a listen at its first event (the acknowledgement).
        if (input.method === "GET" || text.includes("\n\n")) {
          finish({ ...head, body: Buffer.concat(chunks), stream: request });
        }
      });
      if (open && input.method === "GET") finish({ ...head, body: Buffer.alloc(0), stream: request });
      response.on("end", () => finish({ ...head, body: Buffer.concat(chunks) }));
      response.on("aborted", () => finish({ error: "lost", message: "the answer was cut off" }));
      response.on("error", (error) => finish({ error: "lost", message: error.message }));
    });
    if (!body) request.end();
    else if (input.chunked) {
      request.write(body.subarray(0, body.length >> 1));
      request.end(body.subarray(body.length >> 1));
    } else request.end(body);
  });
}

/**
 * Reads an answer: `{ status, cls?, idKey?, sessionId?, body, extra? }`. `cls` is the JSON-RPC answer class of a
 * JSON or SSE body (`ack` for a listen's acknowledgement); `extra` says what should not be there.
 */
export function answerOfHttp(result) {
  if (result.error) return { status: 0, extra: `${result.error}: ${result.message}`, body: Buffer.alloc(0) };
  const { status, headers, body } = result;
  const type = String(headers["content-type"] ?? "");
  const out = { status, body, sessionId: headers["mcp-session-id"] };
  if (body.length === 0) return out;
  if (status === 202 || (status === 200 && type === ""))
    return { ...out, extra: "a body where none belongs" };
  let messages;
  if (type.startsWith("application/json")) {
    try {
      messages = [JSON.parse(body.toString("utf8"))];
    } catch {
      return { ...out, extra: "a JSON answer that is not JSON" };
    }
  } else if (type.startsWith("text/event-stream")) {
    messages = events(body.toString("utf8"));
    if (messages === undefined) return { ...out, extra: "an SSE event that is not JSON" };
  } else return out;
  const answers = messages.map((message) => ({ message, ...answerOf(message) })).filter((a) => a.cls);
  if (answers.length === 0) return { ...out, extra: "no JSON-RPC answer in the body" };
  if (answers.length > 1) return { ...out, extra: `${answers.length} JSON-RPC answers in one body` };
  const [answer] = answers;
  const idKey =
    answer.cls === "ack"
      ? answer.key
      : "id" in answer.message
        ? JSON.stringify(answer.message.id)
        : undefined;
  return { ...out, cls: answer.cls, idKey };
}

/** The JSON messages of an SSE body (comments skipped); undefined when an event is not JSON. */
function events(text) {
  const messages = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    const data = block
      .split(/\r?\n/)
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).replace(/^ /, ""))
      .join("\n");
    if (data === "") continue;
    try {
      messages.push(JSON.parse(data));
    } catch {
      return undefined;
    }
  }
  return messages;
}
