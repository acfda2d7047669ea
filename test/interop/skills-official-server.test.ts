/**
 * Interop: mcpkit's Skills client (`mcpkit/skills`) against the official v2 `SkillsExtension` server
 * (`@modelcontextprotocol/server/ext/skills` 2.4.0), dual-era through `serveStdio(factory, { transport })` over the
 * official in-memory pair, with each era forced by the mcpkit client. The client side only uses `client.request`,
 * so it needs nothing of the server extension API. Also: mcpkit's catalogue publishes, for the same files, the very
 * entry the official `skillEntry` builds (digests, sizes, frontmatter).
 */
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { memorySkillFiles, SkillsExtension, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { describe, expect, it } from "vitest";
import { createSkillCatalogue, type SkillEntry, SkillsClient } from "../../src/skills/index.js";
import { LEGACY, MODERN } from "../support/interop-helpers.js";
import { type HostedServer, useMcpkitClient } from "../support/interop-official-server-cases.js";
import { useWireValidation } from "../support/validating-transport.js";

useWireValidation();

const SKILL_MD =
  '---\nname: pdf-processing\ndescription: Extract, fill, and assemble PDF documents\nlicense: MIT\nmetadata:\n  version: "1.0"\n---\n\n# PDF\nSee references/FORMS.md.\n';
const FILES = {
  "pdf-processing/SKILL.md": SKILL_MD,
  "pdf-processing/references/FORMS.md": "# Forms\n",
  "pdf-processing/scripts/fill.py": "print('fill')\n",
};
const SKILL_URI = "skill://pdf-processing/SKILL.md";

const harness = useMcpkitClient({
  title: "official v2 SkillsExtension server",
  serverInfo: { name: "official-v2-skills", version: "2.4.0" },
  instructions: "",
  unknownTool: { error: { code: -32602, message: "" } },
  missingResource: { message: "" },
});

async function host(): Promise<HostedServer> {
  const catalog = await SkillsExtension.load(memorySkillFiles({ ...FILES }), { onWarning: () => {} });
  const factory = () => {
    const server = new McpServer({ name: "official-v2-skills", version: "2.4.0" });
    catalog.attach(server);
    return server;
  };
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const errors: Error[] = [];
  const handle = serveStdio(factory, { transport: serverSide, onerror: (e) => errors.push(e) });
  return { clientSide, close: () => handle.close(), errors };
}

describe.each([MODERN, LEGACY])("mcpkit skills client -> official v2 SkillsExtension, %s", (era) => {
  async function connected() {
    const session = await harness.connect({ host, protocolVersion: era });
    expect(session.info.era).toBe(era);
    return { ...session, skills: new SkillsClient(session.client) };
  }

  it("sees the declaration, lists and gets without reading any file", async () => {
    const { skills, messages } = await connected();
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const { skills: entries, invalid } = await skills.listAll();
    expect(invalid).toEqual([]);
    expect(entries.map((e) => e.uri)).toEqual([SKILL_URI]);
    const got = await skills.get(SKILL_URI);
    expect(got.skill).toEqual(entries[0]);
    if (era === MODERN)
      expect(got).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) });
    const methods = messages.map((m) => (m.message as { method?: string }).method).filter(Boolean);
    expect(methods).toContain("skills/list");
    expect(methods).not.toContain("resources/read");
  });

  it("loads the skill through the verifying path and reads its files verified", async () => {
    const { skills } = await connected();
    const { skill } = await skills.get(SKILL_URI);
    const loaded = await skills.load(skill);
    expect(loaded.verified).toBe(true);
    expect(loaded.skillMd.frontmatter).toEqual(skill.frontmatter);
    expect(loaded.body).toBe("\n# PDF\nSee references/FORMS.md.\n");
    expect((await loaded.readFile("references/FORMS.md")).text).toBe("# Forms\n");
    expect((await loaded.readFile("scripts/fill.py")).verified).toBe(true);
    await expect(loaded.readFile("references/MISSING.md")).rejects.toMatchObject({ reason: "unlisted" });
  });

  it("reads the skill's directories", async () => {
    const { skills } = await connected();
    const root = await skills.readDirectory("skill://pdf-processing");
    expect(root.resources.map((r) => [r.uri, r.mimeType])).toEqual([
      [SKILL_URI, "text/markdown"],
      ["skill://pdf-processing/references", "inode/directory"],
      ["skill://pdf-processing/scripts", "inode/directory"],
    ]);
    await expect(skills.readDirectory(SKILL_URI)).rejects.toMatchObject({ code: -32602 });
  });

  it("gets -32602 for a skill the server does not serve", async () => {
    const { skills } = await connected();
    await expect(
      skills.get("skill://mcp-conformance-nonexistent-skill-9f3a2b/SKILL.md"),
    ).rejects.toMatchObject({
      code: -32602,
    });
  });
});

describe("mcpkit's catalogue and the official skillEntry", () => {
  it("publish the same entry for the same files", async () => {
    const official = await skillEntry("pdf-processing", {
      "SKILL.md": SKILL_MD,
      "references/FORMS.md": FILES["pdf-processing/references/FORMS.md"],
      "scripts/fill.py": FILES["pdf-processing/scripts/fill.py"],
    });
    const catalogue = await createSkillCatalogue([
      {
        skillMd: SKILL_MD,
        files: {
          "references/FORMS.md": FILES["pdf-processing/references/FORMS.md"],
          "scripts/fill.py": FILES["pdf-processing/scripts/fill.py"],
        },
      },
    ]);
    expect(catalogue.get(SKILL_URI)).toEqual(official as unknown as SkillEntry);
  });
});
