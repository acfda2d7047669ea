// The checks of the runtime matrix (test/runtimes/matrix.test.ts), on the built dist/. `clientChecks` needs
// only fetch and Web streams, so it also runs inside each runtime against a Node server; `serverChecks` drives
// a server on a runtime from outside. Each returns what it saw; the test compares.
import { Client } from "../../dist/client/index.js";
import { StreamableHttpClientTransport } from "../../dist/http/index.js";

const trace = (...a) => globalThis.process?.env?.MATRIX_TRACE && console.error(...a);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** A connected client of `era`; `kill()` drops its HTTP exchanges without a word on the wire (a crash). */
export async function connect(url, era, options = {}) {
  const killer = new AbortController();
  const transport = new StreamableHttpClientTransport({
    url,
    fetch: (target, init) =>
      fetch(target, {
        ...init,
        signal: init.signal ? AbortSignal.any([init.signal, killer.signal]) : killer.signal,
      }),
  });
  const client = new Client({
    transport,
    clientInfo: { name: "matrix", version: "1.0.0" },
    protocolVersion: era,
    requestTimeoutMs: 20_000,
    ...options,
  });
  await client.connect();
  return { client, kill: () => killer.abort(new Error("the client crashed")) };
}

const text = (result) => result.content?.[0]?.text ?? result.messages?.[0]?.content?.text;

/** Waits until `check()` is true, polling; false after `ms`. */
async function until(check, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}

/** Waits for the next tools list_changed after `trigger()`: on the 2025 GET stream, or a 2026 listen stream. */
async function listChanged(url, era, trigger, idleMs = 0) {
  let seen = 0;
  const { client } = await connect(url, era, {
    onNotification: (n) => {
      if (n.method === "notifications/tools/list_changed") seen++;
    },
  });
  try {
    if (era === "2026-07-28") {
      const sub = await client.listenSubscriptions({ toolsListChanged: true });
      const ack = await sub.next(5_000);
      if (ack.type !== "acknowledged") return `no acknowledgement: ${ack.type}`;
      if (idleMs > 0) await sleep(idleMs);
      await trigger();
      const event = await sub.next(5_000);
      await sub.close();
      return event.type === "notification" ? event.notification.method : `got ${event.type}`;
    }
    // The GET stream opens in the background after initialize: give it the time a client would.
    await sleep(idleMs > 0 ? idleMs : 1_000);
    await trigger();
    return (await until(() => seen > 0, 5_000)) ? "notifications/tools/list_changed" : "nothing arrived";
  } finally {
    await client.close();
  }
}

/** Tools, resources, prompts, progress and a list_changed: what a client inside a runtime must do. */
export async function clientChecks(url, era) {
  const out = {};
  const { client } = await connect(url, era);
  try {
    out.tools = text(await client.callTool("add", { a: 2, b: 3 }));
    out.resources = (await client.readResource("test://hello")).contents[0].text;
    out.prompts = text(await client.getPrompt("greet", { name: "Ada" }));
    const progress = [];
    out.progressResult = text(
      await client.callTool("progress", {}, { onProgress: (p) => progress.push(p.message) }),
    );
    out.progress = progress;
  } finally {
    await client.close();
  }
  out.listChanged = await listChanged(url, era, () => fetch(new URL("/change", url)));
  return out;
}

/**
 * The server side's limits and lifecycle, driven from outside: a quiet stream past the keepalive and the
 * runtime's idle cut, cancellation, the handler deadline, session expiry and capacity recovery after abandoned
 * calls. `limits` are the app's: handlerTimeoutMs 2 s, 2 handler slots, 2 s session idle, 3 sessions.
 */
export async function serverChecks(url, era, { idleMs }) {
  const out = {};
  const base = new URL("/", url);
  const quiet = listChanged(url, era, () => fetch(new URL("/change", base)), idleMs);
  const { client } = await connect(url, era);
  try {
    // Cancellation: 2025 sends notifications/cancelled; 2026 closes the request's stream.
    const cancel = new AbortController();
    const call = client.callTool("sleep", {}, { signal: cancel.signal }).catch((e) => e);
    let reason = "";
    const sleepState = async () => {
      reason = text(await client.callTool("sleepAbort", {})) ?? "";
      return reason;
    };
    // Cancel only once the handler runs, however long the request takes to arrive.
    await until(async () => (await sleepState()) === "running", 30_000);
    cancel.abort();
    await call;
    trace("cancelled", JSON.stringify(out));
    // The call ends by the client's cancellation, or else by its 2 s deadline: the reason says which, however
    // slowly the runtime reports the disconnect.
    await until(async () => !["", "running"].includes(await sleepState()), 30_000);
    trace("cancel reason", reason);
    // The cancellation's reason is the runtime's own where it aborts the request (an AbortError), else ours.
    out.cancelled = !["", "running", "handler callback timed out"].includes(reason);
    // Its deadline frees the slot either way.
    await sleep(2_000);
    // The deadline: a handler that never answers gets -32603 "handler callback timed out".
    trace("deadline", JSON.stringify(out));
    out.deadline = await client.callTool("hang", {}).then(
      () => "answered",
      (error) => error.message,
    );
    // Capacity: two calls abandoned by a crashed client hold both slots until their deadline; then they are back.
    const crashed = await connect(url, era);
    const held = [
      crashed.client.callTool("hang", {}).catch(() => {}),
      crashed.client.callTool("hang", {}).catch(() => {}),
    ];
    await sleep(500);
    crashed.kill();
    await Promise.all(held);
    await sleep(3_000);
    trace("afterAbandoned", JSON.stringify(out));
    out.afterAbandoned = await client.callTool("add", { a: 1, b: 1 }).then(text, (error) => error.message);
  } finally {
    await client.close();
  }
  if (era === "2025-11-25") {
    // Session expiry: crashed sessions fill the cap (4); once they expire (2 s idle, after their GET stream is
    // seen gone: at once, or at the next keepalive write on Workers) a new session opens.
    let refused = "";
    for (let i = 0; i < 6 && refused === ""; i++) {
      await connect(url, era).then(
        (crashed) => crashed.kill(),
        (error) => {
          refused = error.message;
        },
      );
    }
    out.capFilled = refused;
    let answer;
    await until(async () => {
      answer = await connect(url, era).then(
        async ({ client: fresh }) => {
          const added = text(await fresh.callTool("add", { a: 2, b: 2 }));
          await fresh.close();
          return added;
        },
        (error) => error.message,
      );
      return answer === "4";
    }, 15_000);
    out.sessionAfterExpiry = answer;
  }
  out.quietStream = await quiet;
  return out;
}
