/**
 * Interop: mcpkit's Skills client (`mcpkit/skills`) against the official v2 `SkillsExtension` server
 * (`@modelcontextprotocol/server/ext/skills` 2.4.0), with each era forced by the mcpkit client, over:
 * - Streamable HTTP on 127.0.0.1: the official `createMcpHandler` on its Node adapter (`@modelcontextprotocol/node`);
 * - stdio: the mcpkit stdio launcher starting test/fixtures/official-skills-stdio-server.mjs (`serveStdio`), every
 *   frame of every process checked from the fixture's wire log;
 * - in-process: `serveStdio(factory, { transport })` over the official in-memory pair.
 * Both real transports serve the same folder of two skills (`loadSkills`, one skill a page) and check, in each cell:
 * paged listing, get, the verifying load and verified reads through `resources/read`, `resources/directory/read`,
 * every message against the era's schema. One negative cell: a server whose source serves tampered bytes makes
 * mcpkit's client refuse the file with an error naming the skill and the file. The client side only uses
 * `client.request`, so it needs nothing of the server extension API. Also: mcpkit's catalogue publishes, for the
 * same files, the very entry the official `skillEntry` builds (digests, sizes, frontmatter).
 */
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import { join } from "node:path";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { createMcpHandler, InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import {
  memorySkillFiles,
  type SkillSource,
  SkillsExtension,
  skillEntry,
} from "@modelcontextprotocol/server/ext/skills";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { describe, expect, it } from "vitest";
import { Client } from "../../src/client/index.js";
import { StreamableHttpClientTransport } from "../../src/http/client/transport.js";
import {
  createSkillCatalogue,
  type SkillEntry,
  SkillsClient,
  SkillVerificationError,
} from "../../src/skills/index.js";
import { launchStdio } from "../../src/stdio/index.js";
import { useWireLogs } from "../fixtures/stdio-server/harness.js";
import { LEGACY, listenOnLoopback, MODERN, useCleanups } from "../support/interop-helpers.js";
import { type HostedServer, useMcpkitClient } from "../support/interop-official-server-cases.js";
import { fromOfficialTransport } from "../support/official-bridge.js";
import {
  FORMS,
  LOGO,
  PDF,
  PDF_MD,
  POLICY,
  REFUNDS,
  SKILL_FILES,
  useSkillFolder,
} from "../support/skills-interop.js";
import {
  type Era,
  useWireValidation,
  type WireRecord,
  WireValidator,
  wrapTransport,
} from "../support/validating-transport.js";
import { repoRoot } from "../support/wire-schema.js";

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

const cleanup = useCleanups();
const root = useSkillFolder();
const CLIENT_INFO = { name: "mcpkit-skills-interop", version: "0.1.0" };

/** An mcpkit client on `transport`, its traffic checked against `era`'s schema, forcing `era`. */
async function mcpkitClient(
  transport: ConstructorParameters<typeof Client>[0]["transport"],
  era: Era,
): Promise<{ client: Client; skills: SkillsClient; messages: WireRecord[] }> {
  const messages: WireRecord[] = [];
  const client = new Client({
    transport: wrapTransport(transport, "client", new WireValidator(era), { messages }),
    clientInfo: CLIENT_INFO,
    ...(era === LEGACY ? { protocolVersion: LEGACY } : {}),
  });
  cleanup(() => client.close());
  const info = await client.connect();
  expect(info.era).toBe(era);
  expect(info.serverInfo?.name).toBe("official-v2-skills");
  return { client, skills: new SkillsClient(client), messages };
}

/** The official server on its Node HTTP adapter on 127.0.0.1, built per request from `attach`. */
async function officialHttp(attach: (server: McpServer) => void): Promise<string> {
  const handler = createMcpHandler(() => {
    const server = new McpServer({ name: "official-v2-skills", version: "2.4.0" });
    attach(server);
    return server;
  });
  cleanup(() => handler.close());
  const node = toNodeHandler(handler) as unknown as (req: IncomingMessage, res: ServerResponse) => void;
  const port = await listenOnLoopback(createHttpServer(node), cleanup);
  return `http://127.0.0.1:${port}/mcp`;
}

/** Everything one cell checks, against the folder of test/support/skills-interop.ts served one skill a page. */
async function exercise(era: Era, { client, skills, messages }: Awaited<ReturnType<typeof mcpkitClient>>) {
  expect(skills.supported).toBe(true);
  expect(skills.directoryRead).toBe(true);
  expect(client.serverCapabilities?.resources).toBeDefined();

  // One page by one, then every page.
  const first = await skills.list();
  expect(first.skills.map((s) => s.uri)).toEqual([PDF]);
  expect(first.nextCursor).toEqual(expect.any(String));
  const second = await skills.list({ cursor: first.nextCursor as string });
  expect(second.skills.map((s) => s.uri)).toEqual([REFUNDS]);
  expect(second.nextCursor).toBeUndefined();
  const all = await skills.listAll();
  expect(all.invalid).toEqual([]);
  expect(all.skills).toEqual([...first.skills, ...second.skills]);

  const got = await skills.get(PDF);
  expect(got.skill).toEqual(first.skills[0]);
  if (era === MODERN)
    expect(got).toMatchObject({ ttlMs: expect.any(Number), cacheScope: expect.any(String) });

  // The verifying load reads SKILL.md only; every file read is checked against its digest and size.
  const loaded = await skills.load(got.skill);
  expect(loaded.verified).toBe(true);
  expect(loaded.skillMd.frontmatter).toEqual(got.skill.frontmatter);
  expect(loaded.body).toBe("\n# PDF\nSee references/FORMS.md.\n");
  expect(await loaded.readFile("references/FORMS.md")).toMatchObject({ verified: true, text: FORMS });
  const logo = await loaded.readFile("assets/logo.bin");
  expect(logo.verified).toBe(true);
  expect(logo.bytes).toEqual(LOGO);
  const refunds = await skills.load((await skills.get(REFUNDS)).skill);
  expect(await refunds.readFile("references/POLICY.md")).toMatchObject({ verified: true, text: POLICY });
  const reads = messages.filter((r) => "method" in r.message && r.message.method === "resources/read");
  expect(reads).toHaveLength(5);

  // A plain resources/read of a SKILL.md, and the listing.
  const raw = await client.readResource(PDF);
  expect(raw.contents[0]).toMatchObject({ uri: PDF, text: PDF_MD });
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining([PDF, REFUNDS]));

  // Directory pages (one child a page here), walked by cursor.
  const children: [string, string | undefined][] = [];
  let cursor: string | undefined;
  do {
    const page = await skills.readDirectory("skill://pdf-processing", cursor === undefined ? {} : { cursor });
    children.push(...page.resources.map((r): [string, string | undefined] => [r.uri, r.mimeType]));
    cursor = page.nextCursor;
  } while (cursor !== undefined && children.length < 10);
  expect(children).toEqual([
    [PDF, "text/markdown"],
    ["skill://pdf-processing/assets", "inode/directory"],
    ["skill://pdf-processing/references", "inode/directory"],
  ]);
}

describe.each([MODERN, LEGACY] as const)(
  "mcpkit skills client -> official v2 SkillsExtension over HTTP, %s",
  (era) => {
    it("lists (paged), gets, loads and reads verified, walks directories", async () => {
      const catalog = await loadSkills(root(), { pageSize: 1, onWarning: () => {} });
      const url = await officialHttp((server) => catalog.attach(server));
      await exercise(era, await mcpkitClient(new StreamableHttpClientTransport({ url }), era));
    });

    it("in-process: the same folder from memory, through serveStdio on the official memory pair", async () => {
      const catalog = await SkillsExtension.load(memorySkillFiles({ ...SKILL_FILES }), {
        pageSize: 1,
        onWarning: () => {},
      });
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      const handle = serveStdio(
        () => {
          const server = new McpServer({ name: "official-v2-skills", version: "2.4.0" });
          catalog.attach(server);
          return server;
        },
        { transport: serverSide },
      );
      cleanup(() => handle.close());
      await exercise(era, await mcpkitClient(fromOfficialTransport(clientSide), era));
    });

    it("refuses a tampered file with an error naming the skill and the file", async () => {
      const entry = await skillEntry("pdf-processing", {
        "SKILL.md": PDF_MD,
        "references/FORMS.md": FORMS,
        "assets/logo.bin": LOGO,
      });
      const tampered: { [uri: string]: { text: string } | { bytes: Uint8Array } } = {
        [PDF]: { text: PDF_MD },
        "skill://pdf-processing/references/FORMS.md": { text: FORMS.replace("Forms", "F0rms") },
        "skill://pdf-processing/assets/logo.bin": { bytes: Uint8Array.from([...LOGO, 2]) },
      };
      const source: SkillSource = {
        list: async () => ({ skills: [entry] }),
        get: async (uri) => (uri === PDF ? entry : undefined),
        read: async (uri) => tampered[uri],
      };
      const extension = new SkillsExtension({ source, onWarning: () => {} });
      const url = await officialHttp((server) => extension.attach(server));
      const { skills } = await mcpkitClient(new StreamableHttpClientTransport({ url }), era);
      const [listed] = (await skills.listAll()).skills;
      if (listed === undefined) throw new Error("no skill listed");
      const loaded = await skills.load(listed);
      const digest = await loaded.readFile("references/FORMS.md").catch((e: unknown) => e);
      expect(digest).toBeInstanceOf(SkillVerificationError);
      expect(digest).toMatchObject({
        code: "INVALID_RESULT",
        reason: "digest",
        skill: PDF,
        file: "skill://pdf-processing/references/FORMS.md",
      });
      const size = await loaded.readFile("assets/logo.bin").catch((e: unknown) => e);
      expect(size).toMatchObject({
        reason: "size",
        skill: PDF,
        file: "skill://pdf-processing/assets/logo.bin",
      });
    });
  },
);

describe.each([MODERN, LEGACY] as const)(
  "mcpkit skills client -> official v2 SkillsExtension over stdio, %s",
  (era) => {
    const logs = useWireLogs();

    it("lists (paged), gets, loads and reads verified, walks directories", async () => {
      let stderr = "";
      const launched = launchStdio({
        command: process.execPath,
        args: [join(repoRoot, "test/fixtures/official-skills-stdio-server.mjs"), root()],
        env: { MCPKIT_FIXTURE_WIRE_LOG: logs.dir(), MCPKIT_SKILLS_PAGE_SIZE: "1" },
        policy: { stderr: "capture", shutdownTimeoutMs: 2_000 },
        onStderr: (text) => {
          stderr += text;
        },
      });
      const connected = await mcpkitClient(launched, era);
      logs.track(() => connected.client.close());
      await exercise(era, connected);
      const [log] = logs.read();
      expect(log?.era).toBe(era);
      expect(log?.requests("skills/list")).toHaveLength(4);
      expect(stderr).toBe("");
    });
  },
);

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
