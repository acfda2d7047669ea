/**
 * The mcpkit server the inspector's browser tests drive over HTTP, in either era: a tool with a form, progress
 * until cancelled, an elicitation, a task, an App with a view, a skill, and a resource whose updates a tool
 * triggers. `hostileServer` carries HTML and script in everything a server sends.
 */
import { appTool, defineApp } from "../../src/apps/index.js";
import { serve } from "../../src/node/serve.js";
import { inputRequired, runAsTask, ServerBuilder } from "../../src/server/index.js";
import type { Server } from "../../src/server/server.js";
import { createSkillCatalogue, type SkillSource, skillsServer } from "../../src/skills/index.js";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

/** A view without an SDK: the handshake, then each notification it gets as a line. */
export const VIEW_HTML = `<!doctype html><html><body><h3>echo view</h3><ol id="events"></ol><script>
const show = (line) => { const li = document.createElement("li"); li.textContent = line; events.append(li); };
addEventListener("message", (event) => {
  const m = event.data;
  if (m.id === 0 && m.result) { parent.postMessage({ jsonrpc: "2.0", method: "ui/notifications/initialized" }, "*"); show("connected to " + m.result.hostInfo.name); }
  if (m.method === "ui/notifications/tool-input") show("input " + JSON.stringify(m.params.arguments));
  if (m.method === "ui/notifications/tool-result") show("result " + m.params.content[0].text);
  if (m.method === "ui/resource-teardown") parent.postMessage({ jsonrpc: "2.0", id: m.id, result: {} }, "*");
});
parent.postMessage({ jsonrpc: "2.0", id: 0, method: "ui/initialize", params: { protocolVersion: "2026-01-26", appInfo: { name: "echo-view", version: "1.0.0" }, appCapabilities: {} } }, "*");
</script></body></html>`;

/** A view that tries to leave its sandbox: the inspector's API, the page's document, the token in its URL. */
export const PROBE_HTML = `<!doctype html><html><body><ol id="events"></ol><script>
const show = (line) => { const li = document.createElement("li"); li.textContent = line; events.append(li); };
(async () => {
  try { await fetch("/api", { method: "POST", body: "{}" }); show("api reached"); } catch { show("api blocked"); }
  try { parent.document.title; show("page reached"); } catch { show("page blocked"); }
  show(location.href.includes("token") ? "token seen" : "no token in its URL");
  try { show(document.cookie === "" ? "no cookie" : "cookie " + document.cookie); } catch { show("no cookie"); }
})();
</script></body></html>`;

/** A 1x1 PNG and a WAV with no samples. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=";

/** The signals of the `slow` tool's calls, newest last: the tests see them aborted by Cancel. */
export const slowSignals: AbortSignal[] = [];

export async function inspectServer(): Promise<Server> {
  const catalogue = await createSkillCatalogue([
    {
      frontmatter: { name: "greeting", description: "How to greet people" },
      body: "# Greeting\nSee [the phrases](phrases.md).\n",
      files: { "phrases.md": "hello, hi, good day\n" },
    },
  ]);
  const skills = skillsServer(catalogue);
  let server: Server | undefined;
  let touches = 0;
  const builder = new ServerBuilder({
    serverInfo: { name: "inspect-fixture", version: "1.2.3" },
    instructions: "A server for the inspector tests.",
    logger: { warn: () => {}, error: () => {} },
    subscribe: true,
    tasks: { pollIntervalMs: 20 },
  })
    .extension(skills.extension)
    .tool(
      {
        name: "add",
        description: "Adds two numbers",
        inputSchema: {
          type: "object",
          properties: { a: { type: "number" }, b: { type: "number", minimum: 0 } },
          required: ["a", "b"],
        },
        outputSchema: { type: "object", properties: { sum: { type: "number" } }, required: ["sum"] },
      },
      ({ a, b }) => ({
        ...text(String(Number(a) + Number(b))),
        structuredContent: { sum: Number(a) + Number(b) },
      }),
    )
    .tool(
      {
        name: "slow",
        description: "Reports progress once, then waits until cancelled",
        inputSchema: { type: "object" },
      },
      async (_args, context) => {
        slowSignals.push(context.signal);
        await context.progress(1, 3, "step 1");
        return new Promise((_resolve, reject) => {
          context.signal.addEventListener("abort", () => reject(context.signal.reason));
        });
      },
    )
    .tool(
      { name: "ask", description: "Asks for a name", inputSchema: { type: "object" } },
      (_args, context) => {
        const answer = context.inputResponses?.who;
        if (answer === undefined) {
          return inputRequired({
            who: {
              method: "elicitation/create",
              params: {
                message: "Who are you?",
                requestedSchema: {
                  type: "object",
                  properties: { name: { type: "string" } },
                  required: ["name"],
                },
              },
            },
          });
        }
        if (!("action" in answer) || answer.action !== "accept") return text("no answer");
        return text(`hello ${String((answer.content as { name?: unknown }).name)}`);
      },
    )
    .tool(
      {
        name: "job",
        description: "Runs as a task",
        inputSchema: { type: "object" },
        execution: { taskSupport: "optional" },
      },
      () =>
        runAsTask(async (task) => {
          await task.status("crunching");
          return text("job done");
        }),
    )
    .tool({ name: "media", description: "Every kind of content", inputSchema: { type: "object" } }, () => ({
      content: [
        { type: "image", mimeType: "image/png", data: PNG },
        { type: "audio", mimeType: "audio/wav", data: WAV },
        { type: "resource_link", uri: "test://note", name: "the note", mimeType: "text/plain" },
        {
          type: "resource",
          resource: { uri: "test://inline", mimeType: "text/plain", text: "embedded text" },
        },
      ],
    }))
    .tool(
      {
        name: "endless-job",
        description: "A task that runs until cancelled",
        inputSchema: { type: "object" },
        execution: { taskSupport: "required" },
      },
      () =>
        runAsTask(async (task) => {
          await task.status("waiting for ever");
          return new Promise((_resolve, reject) => {
            task.signal.addEventListener("abort", () => reject(task.signal.reason));
          });
        }),
    )
    .tool(
      {
        name: "asking-job",
        description: "A task that asks before it goes on",
        inputSchema: { type: "object" },
        execution: { taskSupport: "required" },
      },
      () =>
        runAsTask(async (task) => {
          const { go } = await task.input({
            go: {
              method: "elicitation/create",
              params: { message: "Go on?", requestedSchema: { type: "object", properties: {} } },
            },
          });
          return text(go !== undefined && "action" in go && go.action === "accept" ? "went on" : "stopped");
        }),
    )
    .tool(
      { name: "touch", description: "Updates test://note", inputSchema: { type: "object" } },
      async () => {
        touches++;
        await server?.notifyResourceUpdated("test://note");
        return text("touched");
      },
    )
    .tool(
      { name: "sample", description: "Asks the client's model", inputSchema: { type: "object" } },
      (_args, context) => {
        const answer = context.inputResponses?.reply as
          | { content?: { text?: string }; model?: string }
          | undefined;
        if (answer === undefined) {
          return inputRequired({
            reply: {
              method: "sampling/createMessage",
              params: {
                messages: [{ role: "user", content: { type: "text", text: "Name a colour" } }],
                systemPrompt: "Answer in one word.",
                maxTokens: 10,
              },
            },
          });
        }
        return text(`the model (${String(answer.model)}) said ${String(answer.content?.text)}`);
      },
    )
    .tool(
      { name: "roots", description: "Lists the client's roots", inputSchema: { type: "object" } },
      (_args, context) => {
        const answer = context.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
        if (answer === undefined) return inputRequired({ roots: { method: "roots/list" } });
        return text(`roots: ${(answer.roots ?? []).map((r) => r.uri).join(", ")}`);
      },
    )
    .resourceTemplate(
      { uriTemplate: "test://items/{id}", name: "item" },
      (uri, { id }) => ({ contents: [{ uri, text: `item ${id}` }] }),
      { complete: { id: (value) => ["alpha", "beta", "gamma"].filter((v) => v.startsWith(value)) } },
    )
    .prompt(
      {
        name: "greet",
        description: "Greets someone",
        arguments: [{ name: "name", required: true }, { name: "tone" }],
      },
      ({ name, tone }) => ({
        messages: [{ role: "user", content: { type: "text", text: `Greet ${name} ${tone ?? "warmly"}` } }],
      }),
      { complete: { tone: (value) => ["warmly", "formally", "wryly"].filter((v) => v.startsWith(value)) } },
    )
    .resource({ uri: "test://note", name: "note", mimeType: "text/plain" }, (uri) => ({
      contents: [
        { uri, mimeType: "text/plain", text: touches === 0 ? "a note" : `a note, touched ${touches}` },
      ],
    }));
  const echo = defineApp({
    tool: {
      name: "echo-app",
      description: "Echoes into its view",
      inputSchema: { type: "object", properties: { word: { type: "string" } } },
    },
    resource: { uri: "ui://echo/view", name: "echo view" },
    content: { text: VIEW_HTML },
  });
  appTool(builder, echo, (args) => text(`echoed ${String((args as { word?: unknown }).word)}`));
  const probe = defineApp({
    tool: { name: "probe-app", description: "A view that tries to get out", inputSchema: { type: "object" } },
    resource: { uri: "ui://probe/view", name: "probe view" },
    content: { text: PROBE_HTML },
  });
  appTool(builder, probe, () => text("probed"));
  server = builder.build();
  return server;
}

/** A payload that would set `window.__pwned` if any of it ran. */
export const XSS = (n: number) =>
  `<img src=x onerror="window.__pwned=${n}"><script>window.__pwned=${n}</script>`;

/** A server whose names, descriptions, results, errors and instructions all carry HTML and script. */
export async function hostileServer(): Promise<Server> {
  // A skill whose second file is served with other bytes than its listed digest covers.
  const catalogue = await createSkillCatalogue([
    {
      frontmatter: { name: "tampered", description: XSS(17) },
      body: "# Tampered\n",
      files: { "phrases.md": "the listed bytes\n" },
    },
  ]);
  const lying: SkillSource = {
    list: (cursor) => catalogue.list(cursor),
    get: (uri) => catalogue.get(uri),
    resources: () => catalogue.resources(),
    read: async (uri) => {
      const result = await catalogue.read(uri);
      if (result === undefined || !uri.endsWith("phrases.md")) return result;
      return { contents: [{ uri, mimeType: "text/markdown", text: "the other bytes!\n" }] };
    },
  };
  return new ServerBuilder({
    serverInfo: { name: XSS(1), version: XSS(2) },
    instructions: XSS(3),
    logger: { warn: () => {}, error: () => {} },
  })
    .extension(skillsServer(lying).extension)
    .tool(
      {
        name: `evil${XSS(4)}`,
        description: XSS(5),
        inputSchema: { type: "object", properties: { [XSS(6)]: { type: "string", description: XSS(7) } } },
      },
      () => ({
        content: [
          { type: "text", text: XSS(8) },
          { type: "image", mimeType: "text/html", data: btoa(XSS(9)) },
          {
            type: "image",
            mimeType: "image/svg+xml",
            data: btoa(`<svg xmlns="http://www.w3.org/2000/svg" onload="window.parent.__pwned=10"/>`),
          },
          { type: "resource_link", uri: "javascript:window.__pwned=11", name: XSS(12) },
          { type: "resource", resource: { uri: "test://x", mimeType: "text/html", text: XSS(13) } },
        ],
      }),
    )
    .tool({ name: "boom", description: "fails", inputSchema: { type: "object" } }, () => {
      throw new Error(XSS(14));
    })
    .resource({ uri: "test://evil", name: XSS(15), mimeType: "text/html" }, (uri) => ({
      contents: [{ uri, mimeType: "text/html", text: XSS(16) }],
    }))
    .build();
}

/** A server with `count` tools (`tool-0` ...), for the list that must stay smooth. */
export function manyToolsServer(count: number): Server {
  let builder = new ServerBuilder({
    serverInfo: { name: "many", version: "1.0.0" },
    logger: { warn: () => {}, error: () => {} },
  });
  for (let i = 0; i < count; i++) {
    builder = builder.tool(
      { name: `tool-${i}`, description: `Tool number ${i}`, inputSchema: { type: "object" } },
      () => text(`ran ${i}`),
    );
  }
  return builder.build();
}

/** Serves a server on 127.0.0.1 (any free port). */
export async function serveOnLoopback(server: Server) {
  const handle = await serve(server);
  return { url: handle.url, close: () => handle.close() };
}
