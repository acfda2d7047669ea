// `npm run demo`: an mcpkit server and client in one process, once per wire era, printing what crosses the wire.
import { createInProcessPair, type Era, JsonRpcError, type JsonRpcMessage, type Transport } from "mcpkit";
import { Client } from "mcpkit/client";
import { resourceNotFound, ServerBuilder } from "mcpkit/server";

const server = new ServerBuilder({
  serverInfo: { name: "demo-server", version: "1.0.0" },
  instructions: "Arithmetic and a notebook.",
})
  .tool(
    {
      name: "add",
      description: "Adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
    },
    ({ a, b }) => ({ content: [{ type: "text", text: String(Number(a) + Number(b)) }] }),
  )
  .resourceTemplate({ uriTemplate: "notes://{id}", name: "note" }, (uri, { id }) => {
    if (id !== "1") throw resourceNotFound(uri);
    return { contents: [{ uri, mimeType: "text/plain", text: "Remember the milk." }] };
  })
  .build();

/** Prints one line per message a transport sends or receives. */
function tap(transport: Transport, print: (line: string) => void): Transport {
  const describe = (message: JsonRpcMessage): string => {
    if ("method" in message)
      return "id" in message ? `request ${message.method}` : `notification ${message.method}`;
    if ("error" in message) return `error ${message.error.code} "${message.error.message}"`;
    const keys = Object.keys(message.result).filter((k) => k !== "_meta");
    return `result {${keys.join(", ")}}`;
  };
  return {
    start: (handlers) =>
      transport.start({
        message: (message, info) => {
          print(`  <- ${describe(message)}`);
          handlers.message(message, info);
        },
        close: handlers.close,
      }),
    send: (message) => {
      print(`  -> ${describe(message)}`);
      return transport.send(message);
    },
    close: () => transport.close(),
  };
}

async function session(era: Era | undefined): Promise<void> {
  const print = (line: string) => console.log(line);
  console.log(`\n== client ${era === undefined ? "with default negotiation" : `pinned to ${era}`} ==`);
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({
    transport: tap(clientSide, print),
    clientInfo: { name: "demo-client", version: "1.0.0" },
    ...(era === undefined ? {} : { protocolVersion: era }),
  });
  const info = await client.connect();
  print(`connected: ${info.era}, server ${info.serverInfo?.name} ${info.serverInfo?.version}`);
  const { tools } = await client.listTools();
  print(`tools: ${tools.map((t) => t.name).join(", ")}`);
  const sum = await client.callTool("add", { a: 20, b: 22 });
  print(`add(20, 22) = ${sum.content[0]?.type === "text" ? sum.content[0].text : "?"}`);
  try {
    await client.readResource("notes://2");
  } catch (error) {
    if (!(error instanceof JsonRpcError)) throw error;
    print(`reading notes://2 failed as expected: ${error.code} ${error.message}`);
  }
  await client.close();
}

await session(undefined);
await session("2025-11-25");
