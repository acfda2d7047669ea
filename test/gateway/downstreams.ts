/**
 * The gateway's downstream clients, each behind one shape: the mcpkit client, the official v1 and v2 clients
 * and the official Python SDK's client (test/python/gateway_client.py), each connecting to a gateway URL over
 * Streamable HTTP in its era, listing the tools and calling `up__sample` and `up__elicit`. Each answers the
 * upstream's requests for input the same way: sampling with `<who> heard <prompt>`, elicitation by accepting
 * with the name `<who>`, so a test checks every client's round trips alike.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import {
  Client as V2Client,
  StreamableHTTPClientTransport as V2Transport,
} from "@modelcontextprotocol/client";
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CreateMessageRequestSchema, ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/index.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../src/protocol/versions.js";
import { PYTHON_PROGRAMS } from "../support/python-peer.js";

/** What a downstream saw: the tools listed, and the texts of the two calls (or their error). */
export interface Outcome {
  tools: string[];
  sampled: string;
  elicited: string;
}

/** One downstream client, in one era. */
export interface Downstream {
  name: string;
  era: Era;
  /** Connects to the gateway at `url`, lists, calls both tools, and closes. */
  run(url: string): Promise<Outcome>;
}

const run = promisify(execFile);
const textOf = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((block) => block.text ?? "")
    .join(" ");
const promptOf = (params: { messages: readonly { content: unknown }[] }) =>
  (params.messages[0]?.content as { text?: string } | undefined)?.text ?? "?";
const failed = (error: unknown) => `error: ${(error as Error).message}`;

/** The two calls, each recorded as its text or its error. */
async function calls(call: (name: string) => Promise<unknown>): Promise<Omit<Outcome, "tools">> {
  const sampled = await call("up__sample").then(textOf, failed);
  const elicited = await call("up__elicit").then(textOf, failed);
  return { sampled, elicited };
}

/** The mcpkit client over Streamable HTTP. */
export function mcpkitDownstream(era: Era): Downstream {
  const who = `mcpkit-${era}`;
  return {
    name: "mcpkit client",
    era,
    async run(url) {
      const client = new Client({
        transport: new StreamableHttpClientTransport({ url }),
        clientInfo: { name: who, version: "1" },
        protocolVersion: era,
        capabilities: { sampling: {}, elicitation: { form: {} } },
        onSampling: (params) => ({
          role: "assistant",
          content: { type: "text", text: `${who} heard ${promptOf(params)}` },
          model: "m",
        }),
        onElicitation: () => ({ action: "accept", content: { name: who } }),
      });
      await client.connect();
      try {
        const tools = (await client.listAllTools()).map((t) => t.name).sort();
        return { tools, ...(await calls((name) => client.callTool(name, {}))) };
      } finally {
        await client.close();
      }
    },
  };
}

/** The official v1 client (`@modelcontextprotocol/sdk`), 2025-11-25 only. */
export function v1Downstream(): Downstream {
  const who = "official-v1";
  return {
    name: "official v1 client",
    era: LEGACY_VERSION,
    async run(url) {
      const client = new V1Client(
        { name: who, version: "1" },
        { capabilities: { sampling: {}, elicitation: {} } },
      );
      client.setRequestHandler(CreateMessageRequestSchema, (request) => ({
        role: "assistant",
        content: { type: "text", text: `${who} heard ${promptOf(request.params)}` },
        model: "m",
      }));
      client.setRequestHandler(ElicitRequestSchema, () => ({ action: "accept", content: { name: who } }));
      await client.connect(new V1Transport(new URL(url)));
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name).sort();
        return { tools, ...(await calls((name) => client.callTool({ name, arguments: {} }))) };
      } finally {
        await client.close();
      }
    },
  };
}

/** The official v2 client (`@modelcontextprotocol/client`), pinned to 2026-07-28 or in its legacy mode. */
export function v2Downstream(era: Era): Downstream {
  const who = `official-v2-${era}`;
  return {
    name: "official v2 client",
    era,
    async run(url) {
      const client = new V2Client(
        { name: who, version: "2" },
        {
          capabilities: { sampling: {}, elicitation: {} },
          versionNegotiation: { mode: era === MODERN_VERSION ? { pin: MODERN_VERSION } : "legacy" },
        },
      );
      client.setRequestHandler("sampling/createMessage", async (request) => ({
        role: "assistant",
        content: { type: "text", text: `${who} heard ${promptOf(request.params)}` },
        model: "m",
      }));
      client.setRequestHandler("elicitation/create", async () => ({
        action: "accept",
        content: { name: who },
      }));
      await client.connect(new V2Transport(new URL(url)));
      try {
        const tools = (await client.listTools()).tools.map((t) => t.name).sort();
        return { tools, ...(await calls((name) => client.callTool({ name, arguments: {} }))) };
      } finally {
        await client.close();
      }
    },
  };
}

/**
 * The official Python SDK's client (`python` is the peer venv's interpreter): gateway_client.py in `mode`
 * "auto" (2026-07-28) or "legacy" (2025-11-25), over HTTP to `url`, or over stdio when `url` is a command line
 * (an array: the client launches it).
 */
export function pythonDownstream(python: string | undefined, era: Era): Downstream {
  const who = `python-${era}`;
  return {
    name: "official Python client",
    era,
    run: (url) => runPythonClient(python, era, who, ["http", url]),
  };
}

/** Runs gateway_client.py to its end (`target`: `["http", url]` or `["stdio", command, ...args]`). */
export async function runPythonClient(
  python: string | undefined,
  era: Era,
  who: string,
  target: string[],
): Promise<Outcome> {
  if (python === undefined) throw new Error("the Python peer's venv is missing");
  const { stdout } = await run(python, [`${PYTHON_PROGRAMS}/gateway_client.py`, era, who, ...target], {
    maxBuffer: 1_000_000,
    timeout: 60_000,
  });
  const report = JSON.parse(stdout) as { [step: string]: unknown };
  const shown = (value: unknown) =>
    typeof value === "string" ? value : `error: ${(value as { error?: string } | undefined)?.error}`;
  return {
    tools: Array.isArray(report.tools) ? (report.tools as string[]) : [],
    sampled: shown(report.sampled),
    elicited: shown(report.elicited),
  };
}
