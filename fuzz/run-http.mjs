/**
 * The HTTP runner: per run, a real `node fuzz/server.mjs http` subprocess (mcpkit/node `serve` on 127.0.0.1,
 * both eras and 2025 sessions). Lanes send their requests one at a time, all lanes at once, over keep-alive
 * connections; every answer is checked against the oracle: status, JSON-RPC class and id, the session id a
 * successful `initialize` mints, and the answer's size. A crash is the process exiting; a hang is a request with
 * no answer within the deadline; a lost answer is a connection that ends without one; an extra one is a body
 * where none belongs or more than one JSON-RPC response in an answer. After the run the server must still
 * answer a 2026 `server/discover` and a 2025 `initialize` + `ping`.
 */
import http from "node:http";
import { LEGACY, LIMITS, MODERN } from "./catalog.mjs";
import { httpRun, LANES } from "./gen-http.mjs";
import { idKey } from "./oracle-core.mjs";
import { expectHttp, LaneState } from "./oracle-http.mjs";
import { preview, ServerProcess } from "./peer.mjs";
import { plan } from "./run-stdio.mjs";
import { answerOfHttp, send } from "./send-http.mjs";

/** Requests per run (per server process): each run's size is drawn from this range. */
export const HTTP_RUN_SIZES = [2_000, 6_000];

/** Runs the HTTP fuzz: `count` inputs from `seed` (only run `only` when given). */
export async function fuzzHttp({ seed, count, only, env, tally, progress, deadlineMs }) {
  const started = performance.now();
  for (const run of plan(seed, "http", count, HTTP_RUN_SIZES)) {
    if (only !== undefined && run.run !== only) continue;
    await runOnce(run, { seed, env, tally, deadlineMs });
    progress?.(run.first + run.size);
  }
  tally.ms += performance.now() - started;
}

async function runOnce({ run, first, size, rng }, { seed, env, tally, deadlineMs }) {
  const { inputs } = httpRun(rng, { size, firstIndex: first });
  const server = new ServerProcess("http", env);
  const url = await serverUrl(server);
  if (url === undefined) {
    tally.fail("crash", {
      seed,
      run,
      input: first,
      note: "the server did not start",
      stderr: server.stderrTail,
    });
    return;
  }
  tally.runs++;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const base = new URL(url);
  const context = { seed, run, tally, agent, base, server, streams: [], deadlineMs };
  const lanes = Array.from({ length: LANES }, () => ({ state: new LaneState(), ids: new Map() }));
  await Promise.all(
    lanes.map(async (lane, number) => {
      for (const input of inputs) {
        if (input.lane !== number) continue;
        if (!server.alive) return;
        await runInput(input, lane, context);
      }
    }),
  );
  if (server.alive) await checkAlive(context, first + size - 1);
  for (const stream of context.streams) stream.destroy();
  agent.destroy();
  const exit = await server.end(deadlineMs);
  if (exit.hung) tally.fail("hang", { seed, run, input: first + size - 1, note: "the server did not exit" });
  else if (exit.code !== 0) {
    tally.fail("crash", { seed, run, input: first + size - 1, exit, stderr: server.stderrTail });
  }
  tally.mergeLogs(server.logCounts);
}

async function runInput(generated, lane, context) {
  const { tally, seed, run } = context;
  // The Host the client sends unless the input names one.
  const input = { ...generated, headers: { host: context.base.host, ...generated.headers } };
  tally.inputs++;
  tally.add("kinds", input.kind);
  const sessionHeader = sessionHeaderOf(input, lane);
  const { expectation, apply } = expectHttp(input, lane.state, sessionHeader);
  const where = { seed, run, input: input.index, generated: input.kind };
  if (input.pair) {
    // The same slow call twice at once: one is answered, the other refused as a duplicate.
    const results = await Promise.all(
      [0, 1].map(() => send(context, input, sessionHeader, context.deadlineMs)),
    );
    // Unless the call is refused before dispatch (no session): then both are.
    const served = expectation.answers.some((answer) => answer.status === 200);
    const duplicate = served
      ? { answers: [{ status: 400, cls: "e-32600" }], id: expectation.id }
      : expectation;
    const [a, b] = results.map((result) => answerOfHttp(result));
    const first = judge(a, expectation) === undefined && judge(b, duplicate) === undefined;
    const second = judge(b, expectation) === undefined && judge(a, duplicate) === undefined;
    if (first || second) tally.add("answers", "duplicate pair: one answered, one refused");
    else tally.fail("mismatch", { ...where, got: [a.status, b.status], expected: expectation.answers });
    return;
  }
  const result = await send(context, input, sessionHeader, context.deadlineMs, expectation.stream);
  if (result.error) {
    tally.fail(result.error === "timeout" ? "hang" : "lost", { ...where, note: result.message });
    return;
  }
  if (result.stream) context.streams.push(result.stream);
  const answer = answerOfHttp(result);
  if (result.body.length > LIMITS.httpMaxResponseBytes) {
    tally.fail("over-limit", { ...where, bytes: result.body.length, status: result.status });
  }
  const problem = judge(answer, expectation);
  if (problem !== undefined) {
    tally.fail(problem.kind, { ...where, ...problem, expected: expectation.answers, input: input.index });
    return;
  }
  tally.add("answers", `${answer.status}${answer.cls ? ` ${answer.cls}` : ""}`);
  apply();
  if (expectation.mints && input.opens) lane.ids.set(input.opens, result.headers["mcp-session-id"]);
}

/** What is wrong with an answer, or undefined. */
function judge(answer, expectation) {
  if (answer.extra) return { kind: "extra", got: answer.status, note: answer.extra };
  const allowed = expectation.answers.find((a) => a.status === answer.status && a.cls === answer.cls);
  if (!allowed)
    return {
      kind: "mismatch",
      got: [answer.status, answer.cls],
      body: preview(answer.body ?? Buffer.alloc(0)),
    };
  const idLeftOut = expectation.idOptional && answer.idKey === undefined;
  if (
    answer.cls !== undefined &&
    expectation.id !== undefined &&
    !idLeftOut &&
    answer.idKey !== idKey(expectation.id)
  ) {
    return { kind: "mismatch", got: [answer.status, answer.cls], note: `answered id ${answer.idKey}` };
  }
  if (expectation.mints && !/^[0-9a-f]{32}$/.test(answer.sessionId ?? "")) {
    return { kind: "mismatch", note: `initialize answered without a session id (${answer.sessionId})` };
  }
  return undefined;
}

/** The session id to send: the real id of a live session, a stale or unknown one, a raw value, or none. */
function sessionHeaderOf(input, lane) {
  if (input.session === undefined) return undefined;
  if (input.session.raw !== undefined) return input.session.raw;
  return lane.ids.get(input.session.ref) ?? `0000${input.session.ref.replace(/\W/g, "")}`.padEnd(32, "0");
}

async function serverUrl(server) {
  return new Promise((resolve) => {
    let text = "";
    const onData = (chunk) => {
      text += chunk;
      const newline = text.indexOf("\n");
      if (newline < 0) return;
      server.child.stdout.off("data", onData);
      try {
        resolve(JSON.parse(text.slice(0, newline)).url);
      } catch {
        resolve(undefined);
      }
    };
    server.child.stdout.setEncoding("utf8");
    server.child.stdout.on("data", onData);
    server.exit.then(() => resolve(undefined));
  });
}

/** The server must still answer valid requests of both eras. */
async function checkAlive(context, index) {
  const { tally, seed, run } = context;
  const modern = {
    method: "POST",
    path: "/mcp",
    headers: {
      "content-type": "application/json",
      "mcp-protocol-version": MODERN,
      "mcp-method": "server/discover",
    },
    body: Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "alive",
        method: "server/discover",
        params: {
          _meta: {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    ),
  };
  const init = {
    method: "POST",
    path: "/mcp",
    headers: { "content-type": "application/json" },
    body: Buffer.from(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: LEGACY, capabilities: {}, clientInfo: { name: "alive", version: "1" } },
      }),
    ),
  };
  const a = answerOfHttp(await send(context, modern, undefined, context.deadlineMs));
  const b = answerOfHttp(await send(context, init, undefined, context.deadlineMs));
  let ok = a.status === 200 && a.cls === "ok" && b.status === 200 && b.cls === "ok";
  if (ok) {
    const ping = {
      method: "POST",
      path: "/mcp",
      headers: { "content-type": "application/json", "mcp-protocol-version": LEGACY },
      body: Buffer.from('{"jsonrpc":"2.0","id":2,"method":"ping"}'),
    };
    const c = answerOfHttp(await send(context, ping, b.sessionId, context.deadlineMs));
    ok = c.status === 200 && c.cls === "ok";
  }
  if (ok) tally.add("noAnswer", "server alive after the run (discover, initialize, ping)");
  else tally.fail("hang", { seed, run, input: index, note: "the server no longer answers valid requests" });
}
