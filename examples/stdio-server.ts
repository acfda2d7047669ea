// An MCP server on stdio, and the client side that launches it as a subprocess.
//
//   node stdio-server.js            serves on stdin/stdout until stdin ends (what an MCP host runs)
//   node stdio-server.js --client   launches `node stdio-server.js` as a subprocess and talks to it
//
// stdout carries protocol frames only: the server writes its own diagnostics to stderr (console.error), and the
// client below captures them.
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "mcpkit/client";
import { ServerBuilder } from "mcpkit/server";
import { launchStdio, serveStdio } from "mcpkit/stdio";

export const server = new ServerBuilder({ serverInfo: { name: "stdio-notes", version: "1.0.0" } })
  .tool(
    {
      name: "shout",
      description: "Upper-cases a text",
      inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
    ({ text }, ctx) => {
      console.error(`shout called (${ctx.era})`); // stderr: never console.log in a stdio server
      return { content: [{ type: "text", text: String(text).toUpperCase() }] };
    },
  )
  .build();

/** Launches this file as a stdio server subprocess, once per era; returns what it saw. */
export async function runClient(): Promise<string[]> {
  const lines: string[] = [];
  for (const era of ["2026-07-28", "2025-11-25"] as const) {
    let stderr = "";
    const transport = launchStdio({
      command: process.execPath, // node, by absolute path; never through a shell
      args: [fileURLToPath(import.meta.url)],
      policy: { stderr: "capture" },
      onStderr: (text) => {
        stderr += text;
      },
    });
    const client = new Client({
      transport,
      clientInfo: { name: "stdio-host", version: "1.0.0" },
      ...(era === "2025-11-25" ? { protocolVersion: era } : {}),
    });
    const info = await client.connect();
    const result = await client.callTool("shout", { text: "hello over stdio" });
    await client.close(); // ends stdin, then cleans up the subprocess's process tree
    const text = result.content[0]?.type === "text" ? result.content[0].text : "";
    lines.push(`${info.era} ${info.serverInfo?.name}: ${text}`);
    lines.push(`server stderr: ${stderr.trim()}`);
  }
  return lines;
}

const isMain =
  process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain && process.argv[2] === "--client") {
  for (const line of await runClient()) console.log(line);
} else if (isMain) {
  try {
    await serveStdio(server); // resolves when stdin ends
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  }
}
