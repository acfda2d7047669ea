/**
 * Connected clients for each implementation and transport. Every factory resolves to
 * `{ call(i): Promise<void>, close(): Promise<void> }`; `call(i)` runs `add(i, 1)` and checks the answer: as a
 * `tools/call`, or with `custom` (the in-process and HTTP factories of mcpkit, v2 and the floor) as the custom
 * request `bench/add`. The mcpkit factories come from `mcpkitClients(kit, ...)`, for any build of mcpkit
 * (bench/kit.mjs); `inProcess.mcpkit`, `stdio.mcpkit` and `http.mcpkit` are this checkout's.
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2HttpClient,
} from "@modelcontextprotocol/client";
import { StdioClientTransport as V2StdioClient } from "@modelcontextprotocol/client/stdio";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as V1StdioClient } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as V1HttpClient } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport as V1Memory } from "@modelcontextprotocol/sdk/inMemory.js";
import { InMemoryTransport as V2Memory } from "@modelcontextprotocol/server";
import { serveStdio as v2Serve } from "@modelcontextprotocol/server/stdio";
import * as z from "zod";
import { loadKit } from "./kit.mjs";
import { floorAnswer, LEGACY, MODERN, mcpkitServer, v1Server, v2Server } from "./servers.mjs";

const PEER = fileURLToPath(new URL("./peer.mjs", import.meta.url));
const INFO = { name: "bench", version: "1.0.0" };

function check(text, i) {
  if (text !== String(i + 1)) throw new Error(`add(${i}, 1) answered ${text}`);
}

const textOf = (result) => result.content[0].text;
/** v2's `request()` of a custom method takes a result schema (and checks the result with it). */
const SUM_RESULT = z.looseObject({ sum: z.number() });

function mcpkitCalls(client, custom = false) {
  return {
    call: custom
      ? async (i) => check(String((await client.request("bench/add", { a: i, b: 1 })).sum), i)
      : async (i) => check(textOf(await client.callTool("add", { a: i, b: 1 })), i),
    close: () => client.close(),
  };
}

function officialCalls(client, extraClose, custom = false) {
  const params = (i) => ({ a: i, b: 1 });
  return {
    call: custom
      ? async (i) =>
          check(String((await client.request({ method: "bench/add", params: params(i) }, SUM_RESULT)).sum), i)
      : async (i) => check(textOf(await client.callTool({ name: "add", arguments: params(i) })), i),
    close: async () => {
      await client.close();
      await extraClose?.();
    },
  };
}

/** The bare request of call `i`, and the text to check in its answer. */
function bareRequest(i, custom) {
  return custom
    ? { jsonrpc: "2.0", id: i, method: "bench/add", params: { a: i, b: 1 } }
    : { jsonrpc: "2.0", id: i, method: "tools/call", params: { name: "add", arguments: { a: i, b: 1 } } };
}
const bareText = (message) => String(message.result.sum ?? message.result.content?.[0].text);

const v2Mode = (era) => (era === MODERN ? { pin: MODERN } : "legacy");

/** A bare JSON-RPC client for the floors: `JSON.stringify` out, `JSON.parse` in, nothing else. */
function bareCalls(send, close, custom = false) {
  const waiting = new Map();
  const receive = (text) => {
    const message = JSON.parse(text);
    const resolve = waiting.get(message.id);
    waiting.delete(message.id);
    resolve(message);
  };
  return {
    receive,
    call: (i) =>
      new Promise((resolve) => {
        waiting.set(i, (message) => resolve(check(bareText(message), i)));
        send(JSON.stringify(bareRequest(i, custom)));
      }),
    close,
  };
}

/**
 * The mcpkit factories of one build (`kit`, bench/kit.mjs), client and server from that build: `inProcess(custom)`
 * with `server()` on the other end, `stdio()` launching `bench/peer.mjs stdio mcpkit ...peerFlags`, and
 * `http(url, era, custom)`. They use only what every build has (`createInProcessPair`, `Client`, `launchStdio`,
 * `StreamableHttpClientTransport`, `nodeHttp`).
 */
export function mcpkitClients(kit, { server, peerFlags = [] }) {
  return {
    async inProcess(custom = false) {
      const [clientSide, serverSide] = kit.index.createInProcessPair();
      await server().connect(serverSide);
      const client = new kit.client.Client({ transport: clientSide, clientInfo: INFO });
      await client.connect();
      return mcpkitCalls(client, custom);
    },
    async stdio() {
      const transport = kit.stdio.launchStdio({
        command: process.execPath,
        args: [PEER, "stdio", "mcpkit", ...peerFlags],
      });
      const client = new kit.client.Client({ transport, clientInfo: INFO });
      await client.connect();
      return mcpkitCalls(client);
    },
    /** On `nodeHttp()`, the recommended HTTP stack on Node (the default, `fetch`, costs about twice as much). */
    async http(url, era, custom = false) {
      const transport = new kit.http.StreamableHttpClientTransport({ url, http: kit.node.nodeHttp() });
      const client = new kit.client.Client({
        transport,
        clientInfo: INFO,
        ...(era === LEGACY ? { protocolVersion: LEGACY } : {}),
      });
      const info = await client.connect();
      if (info.protocolVersion !== era) throw new Error(`mcpkit negotiated ${info.protocolVersion}`);
      return mcpkitCalls(client, custom);
    },
  };
}

const self = await loadKit();
const own = mcpkitClients(self, { server: () => mcpkitServer(self.server) });

export const inProcess = {
  mcpkit: own.inProcess,
  async v1() {
    const [clientSide, serverSide] = V1Memory.createLinkedPair();
    await v1Server().connect(serverSide);
    const client = new V1Client(INFO);
    await client.connect(clientSide);
    return officialCalls(client);
  },
  async v2(custom = false) {
    const [clientSide, serverSide] = V2Memory.createLinkedPair();
    const handle = v2Serve(() => v2Server(), { transport: serverSide });
    const client = new V2Client(INFO, { versionNegotiation: { mode: v2Mode(MODERN) } });
    await client.connect(clientSide);
    return officialCalls(client, () => handle.close?.(), custom);
  },
  /** Two ends linked by a microtask hop, as an in-process transport is; JSON both ways. */
  async floor(custom = false) {
    let server;
    const bare = bareCalls(
      (text) => queueMicrotask(() => server(text)),
      async () => {},
      custom,
    );
    server = (text) => {
      const answer = JSON.stringify(floorAnswer(JSON.parse(text)));
      queueMicrotask(() => bare.receive(answer));
    };
    return bare;
  },
};

export const stdio = {
  mcpkit: own.stdio,
  async v1() {
    const client = new V1Client(INFO);
    await client.connect(new V1StdioClient({ command: process.execPath, args: [PEER, "stdio", "v1"] }));
    return officialCalls(client);
  },
  async v2() {
    const client = new V2Client(INFO, { versionNegotiation: { mode: v2Mode(MODERN) } });
    await client.connect(new V2StdioClient({ command: process.execPath, args: [PEER, "stdio", "v2"] }));
    return officialCalls(client);
  },
  /** Newline-delimited JSON to a child that parses each line and writes the answer. */
  async floor() {
    const child = spawn(process.execPath, [PEER, "stdio", "floor"], { stdio: ["pipe", "pipe", "inherit"] });
    let buffered = "";
    const bare = bareCalls(
      (text) => child.stdin.write(`${text}\n`),
      async () => {
        child.stdin.end();
        await new Promise((resolve) => child.once("exit", resolve));
      },
    );
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      buffered += chunk;
      let end = buffered.indexOf("\n");
      while (end >= 0) {
        bare.receive(buffered.slice(0, end));
        buffered = buffered.slice(end + 1);
        end = buffered.indexOf("\n");
      }
    });
    await bare.call(-1); // the child is up, as a client's connect() would have ensured
    return bare;
  },
};

export const http = {
  mcpkit: own.http,
  async v1(url) {
    const client = new V1Client(INFO);
    await client.connect(new V1HttpClient(new URL(url)));
    return officialCalls(client);
  },
  async v2(url, era, custom = false) {
    const client = new V2Client(INFO, { versionNegotiation: { mode: v2Mode(era) } });
    await client.connect(new V2HttpClient(new URL(url)));
    if (client.getNegotiatedProtocolVersion() !== era) throw new Error("v2 negotiated another revision");
    return officialCalls(client, undefined, custom);
  },
  /**
   * The cheapest client there is: `node:http` with a keep-alive agent, a JSON body out, the answer parsed
   * (`fetch` costs about twice as much per call on Node 20, so it would make a lower floor).
   */
  async floor(url, _era, custom = false) {
    const agent = new Agent({ keepAlive: true });
    const { hostname, port, pathname } = new URL(url);
    const post = (text) =>
      new Promise((resolve, reject) => {
        const req = request(
          {
            host: hostname,
            port,
            path: pathname,
            method: "POST",
            agent,
            headers: {
              "content-type": "application/json",
              accept: "application/json",
              "content-length": Buffer.byteLength(text),
            },
          },
          (res) => {
            let answer = "";
            res.setEncoding("utf8");
            res.on("data", (chunk) => {
              answer += chunk;
            });
            res.on("end", () => resolve(JSON.parse(answer)));
            res.on("error", reject);
          },
        );
        req.on("error", reject);
        req.end(text);
      });
    return {
      call: async (i) => check(bareText(await post(JSON.stringify(bareRequest(i, custom)))), i),
      close: async () => agent.destroy(),
    };
  },
};
