/**
 * Servers that cross the inspector page's bounds: long paged lists (resources, templates, prompts), a tool that
 * sends a flood of log messages (the wire log), a task that ends at once (the Tasks tab).
 */
import { runAsTask, ServerBuilder } from "../../src/server/index.js";
import type { Server } from "../../src/server/server.js";
import { createSkillCatalogue, skillsServer } from "../../src/skills/index.js";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const quiet = { warn: () => {}, error: () => {} };

/**
 * `count` resources (`test://r/N`, named `resource-N`), resource templates (`test://tN/{id}`) and prompts
 * (`prompt-N`), listed `pageSize` a page: more pages than the client's default bound of 100.
 */
export function manyListsServer(count: number, pageSize: number): Server {
  let builder = new ServerBuilder({
    serverInfo: { name: "lists", version: "1.0.0" },
    logger: quiet,
    pageSize,
  });
  for (let i = 0; i < count; i++) {
    builder = builder
      .resource({ uri: `test://r/${i}`, name: `resource-${i}`, mimeType: "text/plain" }, (uri) => ({
        contents: [{ uri, mimeType: "text/plain", text: `the text of resource ${i}` }],
      }))
      .resourceTemplate({ uriTemplate: `test://t${i}/{id}`, name: `template-${i}` }, (uri, { id }) => ({
        contents: [{ uri, text: `template ${i} item ${id}` }],
      }))
      .prompt({ name: `prompt-${i}`, description: `Prompt number ${i}` }, () => ({
        messages: [{ role: "user", content: { type: "text", text: `prompt ${i} rendered` } }],
      }));
  }
  return builder.build();
}

/** `chatter` sends `count` log messages, then answers; `quick-job` is a task that completes at once. */
export function chattyServer(): Server {
  return new ServerBuilder({
    serverInfo: { name: "chatty", version: "1.0.0" },
    logger: quiet,
    // Past the page's wire log in one call: above the server's default cap of notifications per request.
    maxNotificationsPerRequest: 100_000,
    maxNotificationBytes: 100_000_000,
    tasks: { pollIntervalMs: 20, maxTasksPerPrincipal: 1_000 },
  })
    .tool(
      {
        name: "chatter",
        description: "Sends count log messages",
        inputSchema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      },
      async ({ count }, context) => {
        for (let i = 0; i < Number(count); i++) await context.log("info", `line ${i}`);
        return text(`sent ${String(count)}`);
      },
    )
    .tool(
      {
        name: "quick-job",
        description: "A task that completes at once",
        inputSchema: { type: "object" },
        execution: { taskSupport: "required" },
      },
      () => runAsTask(async () => text("done")),
    )
    .build();
}

/** A server whose Skills catalogue has `count` skills (`skill-N`). */
export async function manySkillsServer(count: number): Promise<Server> {
  const catalogue = await createSkillCatalogue(
    Array.from({ length: count }, (_, i) => ({
      frontmatter: { name: `skill-${i}`, description: `Skill number ${i}` },
      body: `# Skill ${i}\n`,
    })),
  );
  return new ServerBuilder({ serverInfo: { name: "skills", version: "1.0.0" }, logger: quiet })
    .extension(skillsServer(catalogue).extension)
    .build();
}
