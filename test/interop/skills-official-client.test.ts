/**
 * Interop: the official v2 `SkillsClient` (`@modelcontextprotocol/client/ext/skills` 2.4.0) against a real mcpkit
 * server serving skills with `skillsServer` (the extension registered with `extensions`, its resources merged into
 * the handler), over Streamable HTTP on 127.0.0.1 (mcpkit/node `serve`), in-process and over stdio, in both
 * eras. The official client's envelopes are strict (in 2026-07-28 a `skills/list`, `skills/get` or directory page without `ttlMs`
 * and `cacheScope` is refused) and it verifies every file it reads against mcpkit's digests, sizes and
 * frontmatter; every HTTP message is checked against the era's schema.
 */

import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import { createServer, type Server } from "../../src/server/index.js";
import { createSkillCatalogue, skillsServer } from "../../src/skills/index.js";
import { useServe } from "../support/http-peer.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { validatingPair } from "../support/validating-transport.js";
import { repoRoot, WireValidator } from "../support/wire-schema.js";

const serve = useServe();
const cleanup = useCleanups();

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

/** An mcpkit server with the skills and one resource of its own. */
function mcpkitServer(): Server {
  const skills = skillsServer(catalogue, { directoryRead: true });
  const server = createServer({
    serverInfo: { name: "mcpkit-skills", version: "0.1.0" },
    extensions: [skills.extension],
    handler: skills.handler({
      listResources: () => ({ resources: [{ uri: "test://own", name: "own" }] }),
      readResource: ({ uri }) => ({ contents: [{ uri, text: "own" }] }),
    }),
  });
  cleanup(() => server.close());
  return server;
}

type Era = typeof MODERN | typeof LEGACY;

const transports = {
  async http(era: Era): Promise<Client> {
    const handler = createHttpHandler(mcpkitServer());
    cleanup(() => handler.close());
    const { url } = await serve(handler);
    const wire = validatingFetch(new WireValidator(era));
    cleanup(async () => expect(wire.errors).toEqual([]));
    const client = officialClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
    return client;
  },
  async "in-process"(era: Era): Promise<Client> {
    const pair = validatingPair({ era });
    await mcpkitServer().connect(pair.server);
    const client = officialClient(era);
    await client.connect(toOfficialTransport(pair.client));
    return client;
  },
};

/**
 * Over stdio: the official client launches test/fixtures/skills-stdio-server.mjs (the built package) serving
 * examples/skills; the skill there is pdf-processing with references/FORMS.md.
 */
async function stdio(era: Era): Promise<SkillsClient> {
  const client = officialClient(era);
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [join(repoRoot, "test/fixtures/skills-stdio-server.mjs"), join(repoRoot, "examples/skills")],
      stderr: "pipe",
    }),
  );
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  return new SkillsClient(client);
}

describe.each([MODERN, LEGACY])("official v2 SkillsClient -> mcpkit skillsServer over stdio, %s", (era) => {
  it("lists, loads with verification and walks a folder of skills", async () => {
    const skills = await stdio(era);
    expect(skills.directoryRead).toBe(true);
    const listing = await skills.list();
    expect(listing.invalid).toEqual([]);
    expect(listing.skills.map((s) => s.uri)).toEqual(["skill://pdf-processing/SKILL.md"]);
    const [entry] = listing.skills;
    if (entry === undefined) throw new Error("no skill listed");
    const manifest = await skills.read(entry);
    expect(manifest.verified).toBe(true);
    expect(manifest.frontmatter).toEqual(entry.frontmatter);
    expect((await skills.read(entry, "references/FORMS.md")).text).toMatch(/^# Forms\n/);
    const root = await skills.readDirectory("skill://pdf-processing");
    expect(root.resources.map((r) => [r.name, r.mimeType])).toEqual([
      ["SKILL.md", "text/markdown"],
      ["references", "inode/directory"],
    ]);
  });
});

function officialClient(era: Era): Client {
  const client = new Client(
    { name: "official-v2-client", version: "2.4.0" },
    { versionNegotiation: { mode: era === MODERN ? { pin: MODERN } : "legacy" } },
  );
  cleanup(() => client.close());
  return client;
}

describe.each([
  ["http", MODERN],
  ["http", LEGACY],
  ["in-process", MODERN],
  ["in-process", LEGACY],
] as const)("official v2 SkillsClient -> mcpkit skillsServer over %s, %s", (transport, era) => {
  let client: Client;
  async function connected(): Promise<SkillsClient> {
    client = await transports[transport](era);
    expect(client.getNegotiatedProtocolVersion()).toBe(era);
    return new SkillsClient(client);
  }

  it("lists the SKILL.md before the server's own resources and reads both", async () => {
    await connected();
    const { resources } = await client.listResources();
    expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
      [SKILL_URI, "pdf-processing", "text/markdown"],
      ["test://own", "own", undefined],
    ]);
    const own = await client.readResource({ uri: "test://own" });
    expect(own.contents).toEqual([{ uri: "test://own", text: "own" }]);
    const skillMd = await client.readResource({ uri: SKILL_URI });
    expect(skillMd.contents[0]).toMatchObject({ uri: SKILL_URI, mimeType: "text/markdown" });
  });

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
