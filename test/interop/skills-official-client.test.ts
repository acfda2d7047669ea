/**
 * Interop: the official v2 `SkillsClient` (`@modelcontextprotocol/client/ext/skills` 2.4.0) reads what mcpkit's
 * skills handlers produce, in both eras. Until mcpkit's extension API registers the handlers on an mcpkit server,
 * they are hosted here on the official low-level `Server` (`setRequestHandler` for each method), so this checks
 * the handlers' results, not mcpkit's server: the official client's envelopes are strict (in 2026-07-28 a
 * `skills/list`, `skills/get` or directory page without `ttlMs` and `cacheScope` is refused) and it verifies every
 * file it reads against mcpkit's digests, sizes and frontmatter.
 */
import { Client, InMemoryTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { Server } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { afterEach, describe, expect, it } from "vitest";
import * as z from "zod";
import { createSkillCatalogue, type SkillsExtension, skillsExtension } from "../../src/skills/index.js";
import { LEGACY, MODERN } from "../support/interop-helpers.js";

const SKILL_URI = "skill://acme/pdf-processing/SKILL.md";
const catalogue = await createSkillCatalogue([
  {
    prefix: "acme",
    frontmatter: {
      name: "pdf-processing",
      description: "Extract, fill, and assemble PDF documents",
      metadata: { version: "1.0" },
      "allowed-tools": "Read",
    },
    body: "# PDF\n",
    files: { "references/FORMS.md": "# Forms\n", "assets/logo.bin": Uint8Array.from([0, 255, 1]) },
  },
]);

/** mcpkit's handlers on an official low-level server, which answers for the era it negotiated. */
function officialHost(skills: SkillsExtension): Server {
  const server = new Server(
    { name: "mcpkit-skills-handlers", version: "0.1.0" },
    { capabilities: { resources: {}, extensions: { [skills.id]: { ...skills.settings } } } },
  );
  const context = () => ({ era: server.getNegotiatedProtocolVersion() === MODERN ? MODERN : LEGACY });
  const cache = () => (context().era === MODERN ? { ttlMs: 0, cacheScope: "public" as const } : {});
  for (const [method, handler] of Object.entries(skills.requests)) {
    server.setRequestHandler(
      method,
      { params: z.looseObject({}) },
      (params) => handler(params, context()) as never,
    );
  }
  server.setRequestHandler("resources/list", async () => ({
    resources: await skills.resources(context()),
    ...cache(),
  }));
  server.setRequestHandler("resources/read", async (request) => {
    const result = await skills.readResource({ uri: request.params.uri }, context());
    if (result === undefined) throw new Error(`no resource ${request.params.uri}`);
    return { ...result, ...cache() };
  });
  return server;
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe.each([MODERN, LEGACY])("official v2 SkillsClient -> mcpkit skills handlers, %s", (era) => {
  async function connected(): Promise<SkillsClient> {
    const skills = skillsExtension(catalogue, { directoryRead: true });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const handle = serveStdio(() => officialHost(skills), { transport: serverSide });
    const client = new Client(
      { name: "official-v2-client", version: "2.4.0" },
      era === MODERN ? { versionNegotiation: { mode: { pin: MODERN } } } : {},
    );
    await client.connect(clientSide);
    closers.push(
      () => client.close(),
      () => handle.close(),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    return new SkillsClient(client);
  }

  it("lists and gets mcpkit's entries with no entry refused", async () => {
    const skills = await connected();
    expect(skills.supported).toBe(true);
    expect(skills.directoryRead).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills).toEqual(catalogue.entries);
    if (era === MODERN) expect(listing).toMatchObject({ ttlMs: 0, cacheScope: "public" });
    const got = await skills.get(SKILL_URI);
    expect(got.skill).toEqual(catalogue.get(SKILL_URI));
  });

  it("reads and verifies every file against mcpkit's digests, sizes and frontmatter", async () => {
    const skills = await connected();
    const { skill } = await skills.get(SKILL_URI);
    const manifest = await skills.read(skill);
    expect(manifest.verified).toBe(true);
    expect(manifest.frontmatter).toEqual(skill.frontmatter);
    expect((await skills.read(skill, "references/FORMS.md")).text).toBe("# Forms\n");
    expect((await skills.read(skill, "assets/logo.bin")).bytes).toEqual(Uint8Array.from([0, 255, 1]));
  });

  it("walks mcpkit's directory pages", async () => {
    const skills = await connected();
    const root = await skills.readDirectory("skill://acme/pdf-processing");
    expect(root.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["assets", "inode/directory"],
      ["references", "inode/directory"],
    ]);
  });
});
