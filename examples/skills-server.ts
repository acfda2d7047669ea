// Serving a folder of skills (SEP-2640) over Streamable HTTP, and reading them back with mcpkit's SkillsClient.
// examples/skills/ holds one skill: pdf-processing/SKILL.md and its references/FORMS.md.
import { fileURLToPath } from "node:url";
import { Client } from "mcpkit/client";
import { createHttpHandler, StreamableHttpClientTransport } from "mcpkit/http";
import { serve } from "mcpkit/node";
import { ServerBuilder } from "mcpkit/server";
import { SkillsClient, skillsServer } from "mcpkit/skills";
import { loadSkillDirectory } from "mcpkit/skills/node";

/** Serves `root` on 127.0.0.1, then lists, loads and reads its skills as a host would. */
export async function main(root = fileURLToPath(new URL("skills/", import.meta.url))): Promise<string[]> {
  // Every folder with a SKILL.md is a skill; digests and sizes are computed once, here.
  const skills = skillsServer(await loadSkillDirectory(root), { directoryRead: true });
  // Your own resources stay yours: the skills' SKILL.md files are listed first, their files readable.
  const server = new ServerBuilder({ serverInfo: { name: "skills-server", version: "1.0.0" } })
    .extension(skills.extension)
    .resource({ uri: "docs://readme", name: "readme" }, (uri) => ({
      contents: [{ uri, text: "Ask for a skill by name." }],
    }))
    .build();
  const handler = createHttpHandler(server);
  const running = await serve(handler, { host: "127.0.0.1", port: 0, path: "/mcp" });

  const client = new Client({
    transport: new StreamableHttpClientTransport({ url: running.url }),
    clientInfo: { name: "skills-host", version: "1.0.0" },
  });
  const lines: string[] = [];
  try {
    await client.connect();
    const host = new SkillsClient(client);
    const { resources } = await client.listResources();
    lines.push(`resources: ${resources.map((r) => r.uri).join(", ")}`);
    const { skills: entries } = await host.listAll();
    for (const entry of entries) {
      const skill = await host.load(entry); // SKILL.md only, verified against its digest
      const forms = await skill.readFile("references/FORMS.md"); // on demand, verified too
      lines.push(
        `${skill.skillMd.frontmatter.name}: ${entry.resources.length} files, forms: ${forms.text?.split("\n")[0]}`,
      );
    }
  } finally {
    await client.close();
    await running.close();
    await handler.close();
    await server.close();
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const line of await main(process.argv[2])) console.log(line);
}
