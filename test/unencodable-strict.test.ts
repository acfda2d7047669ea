/**
 * A server process run with `node --unhandled-rejections=strict` (any unhandled rejection ends it) whose tool
 * returns what JSON cannot carry (a BigInt, a cycle): over HTTP in both eras (JSON and SSE answers), in-process,
 * and over stdio, every such call is answered `-32603` "Response could not be encoded" with its id, and the
 * process is still alive and answering afterwards.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../src/jsonrpc/message.js";
import { HttpPeer } from "./support/http-peer.js";
import type { Era } from "./support/wire-schema.js";
import { WireValidator } from "./support/wire-schema.js";

const FIXTURE = fileURLToPath(new URL("./fixtures/unencodable-server.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/node/index.js", import.meta.url));
const UNENCODABLE = {
  code: -32603,
  message: "Response could not be encoded",
  data: { reason: "response_not_encodable" },
};
const KINDS = ["bigint", "circular"] as const;

interface Strict {
  child: ChildProcess;
  lines: string[];
  stderr: () => string;
  /** Resolves once `count` stdout lines have come, or the process has exited. */
  linesOrExit: (count: number) => Promise<void>;
}

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts the fixture under `--unhandled-rejections=strict`, collecting its stdout lines. */
function start(mode: "http" | "stdio"): Strict {
  expect(existsSync(BUILT), "run `npm run build` first (npm test does)").toBe(true);
  const child = spawn(process.execPath, ["--unhandled-rejections=strict", FIXTURE, mode], {
    env: { PATH: process.env.PATH ?? "" },
    stdio: ["pipe", "pipe", "pipe"],
  });
  children.push(child);
  const lines: string[] = [];
  let rest = "";
  let stderr = "";
  let wake = () => {};
  child.stdout?.on("data", (chunk: Buffer) => {
    const parts = (rest + chunk.toString("utf8")).split("\n");
    rest = parts.pop() ?? "";
    lines.push(...parts);
    wake();
  });
  child.on("exit", () => wake());
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const linesOrExit = async (count: number) => {
    while (lines.length < count && child.exitCode === null && child.signalCode === null) {
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
    }
  };
  return { child, lines, stderr: () => stderr, linesOrExit };
}

function expectAlive(server: Strict): void {
  expect(server.child.exitCode, server.stderr()).toBeNull();
  expect(server.child.signalCode).toBeNull();
}

const ERAS: Era[] = ["2026-07-28", "2025-11-25"];

describe("an unencodable result, server run with --unhandled-rejections=strict", () => {
  it("over HTTP (both eras, JSON and SSE) and in-process: -32603 each time, and the process serves on", async () => {
    const server = start("http");
    await server.linesOrExit(1);
    const url = server.lines[0]?.replace(/^listening /, "") ?? "";
    expect(url, server.stderr()).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    for (const era of ERAS) {
      const peer = new HttpPeer(url, era);
      if (era === "2025-11-25") expect((await peer.open()).status).toBe(200);
      for (const kind of KINDS) {
        for (const streamed of [false, true]) {
          const args = { name: "result", arguments: { kind, streamed } };
          const call =
            era === "2026-07-28"
              ? peer.request("tools/call", args, { progressToken: "p" })
              : peer.request("tools/call", { ...args, _meta: { progressToken: "p" } });
          const reply = await peer.send(call);
          expect(reply.contentType).toMatch(streamed ? /^text\/event-stream/ : /^application\/json/);
          expect(reply.messages.at(-1)).toEqual({ jsonrpc: "2.0", id: call.id, error: UNENCODABLE });
        }
        const inProcess = await peer.send(
          peer.request("tools/call", { name: "in-process", arguments: { kind } }),
        );
        expect(inProcess.messages.at(-1)).toMatchObject({
          result: { content: [{ text: "-32603 Response could not be encoded" }] },
        });
      }
      const ok = await peer.send(peer.request("tools/call", { name: "ok", arguments: {} }));
      expect(ok.messages.at(-1)).toMatchObject({ result: { content: [{ text: "still serving" }] } });
      expectAlive(server);
    }
    expect(server.stderr()).toContain("a response could not be encoded");
    expect(server.stderr()).not.toMatch(/Unhandled|ERR_UNHANDLED_REJECTION/);
  });

  it("over stdio: -32603 with the id, and the process serves on", async () => {
    const server = start("stdio");
    const validator = new WireValidator("2026-07-28");
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "strict", version: "1.0.0" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const requests = [
      ...KINDS.map((kind, n) => ({ id: n + 1, name: "result", arguments: { kind } })),
      ...KINDS.map((kind, n) => ({ id: n + 3, name: "in-process", arguments: { kind } })),
      { id: 5, name: "ok", arguments: {} },
    ].map(({ id, ...params }) => ({
      jsonrpc: "2.0" as const,
      id,
      method: "tools/call",
      params: { ...params, _meta: meta },
    }));
    for (const request of requests) validator.check(request, "client");
    server.child.stdin?.write(requests.map((r) => `${JSON.stringify(r)}\n`).join(""));
    await server.linesOrExit(requests.length);
    const answers = server.lines.map((line) => JSON.parse(line) as JsonRpcMessage);
    for (const answer of answers) validator.check(answer, "server");
    const byId = new Map(answers.map((answer) => ["id" in answer ? answer.id : undefined, answer]));
    expect(byId.get(1)).toEqual({ jsonrpc: "2.0", id: 1, error: UNENCODABLE });
    expect(byId.get(2)).toEqual({ jsonrpc: "2.0", id: 2, error: UNENCODABLE });
    for (const id of [3, 4]) {
      expect(byId.get(id)).toMatchObject({
        result: { content: [{ text: "-32603 Response could not be encoded" }] },
      });
    }
    expect(byId.get(5)).toMatchObject({ result: { content: [{ text: "still serving" }] } });
    expectAlive(server);
    const exited = new Promise((resolve) => server.child.once("exit", resolve));
    server.child.stdin?.end();
    expect(await exited, server.stderr()).toBe(0);
  });
});
