/**
 * Interop: the official v2 `SkillsClient` (`@modelcontextprotocol/client/ext/skills` 2.4.0) against a real mcpkit
 * server serving a folder of two skills (`loadSkillDirectory`, one skill a `skills/list` page) with `skillsServer`
 * on a `ServerBuilder` that has a resource of its own, in both eras, over:
 * - Streamable HTTP on 127.0.0.1 (mcpkit/node `serve`), every message checked against the era's schema;
 * - stdio: the official `StdioClientTransport` launching test/fixtures/stdio-server/skills-server.ts (compiled,
 *   on the built package), every frame of every process checked from the fixture's wire log;
 * - in-process, through a validating pair.
 * The official client's envelopes are strict (in 2026-07-28 a `skills/list`, `skills/get` or directory page without
 * `ttlMs` and `cacheScope` is refused) and it verifies every file it reads against mcpkit's digests, sizes and
 * frontmatter. Each cell lists (every page, then one page by cursor), gets, reads and verifies files through
 * `resources/read`, walks a directory with `resources/directory/read`, and sees the skills beside the server's own
 * resource.
 */

import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../../src/http/server/handler.js";
import type { JsonRpcMessage } from "../../src/jsonrpc/message.js";
import type { Server } from "../../src/server/index.js";
import { useWireLogs } from "../fixtures/stdio-server/harness.js";
import { builtFixture } from "../support/fixture-build.js";
import { useServe } from "../support/http-peer.js";
import { LEGACY, MODERN, useCleanups } from "../support/interop-helpers.js";
import { toOfficialTransport } from "../support/official-bridge.js";
import {
  exchanges,
  FORMS,
  LOGO,
  nextCursorOf,
  PDF,
  PDF_MD,
  POLICY,
  REFUNDS,
  useSkillFolder,
} from "../support/skills-interop.js";
import { skillsFixtureServer } from "../support/skills-server.js";
import { validatingFetch } from "../support/validating-fetch.js";
import { useWireValidation, validatingPair } from "../support/validating-transport.js";
import { WireValidator } from "../support/wire-schema.js";

useWireValidation();
const serve = useServe();
const cleanup = useCleanups();
const root = useSkillFolder();

type Era = typeof MODERN | typeof LEGACY;

/** One official client connected to an mcpkit skills server, and the traffic it caused. */
interface Connection {
  client: Client;
  skills: SkillsClient;
  messages(): JsonRpcMessage[];
}

/** The mcpkit server: the skills (one a page) and a resource of its own, on a builder. */
async function mcpkitServer(): Promise<Server> {
  const server = await skillsFixtureServer(root(), 1);
  cleanup(() => server.close());
  return server;
}

function officialClient(era: Era): Client {
  const client = new Client(
    { name: "official-v2-client", version: "2.4.0" },
    { versionNegotiation: { mode: era === MODERN ? { pin: MODERN } : "legacy" } },
  );
  cleanup(() => client.close());
  return client;
}

const connect = {
  async http(era: Era): Promise<Connection> {
    const handler = createHttpHandler(await mcpkitServer());
    cleanup(() => handler.close());
    const { url } = await serve(handler);
    const wire = validatingFetch(new WireValidator(era));
    cleanup(async () => expect(wire.errors).toEqual([]));
    const client = officialClient(era);
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { fetch: wire.fetch }));
    return { client, skills: new SkillsClient(client), messages: () => wire.messages() };
  },
  async "in-process"(era: Era): Promise<Connection> {
    const pair = validatingPair({ era });
    await (await mcpkitServer()).connect(pair.server);
    const client = officialClient(era);
    await client.connect(toOfficialTransport(pair.client));
    return { client, skills: new SkillsClient(client), messages: () => pair.messages.map((r) => r.message) };
  },
};

/** Everything one cell checks. */
async function exercise(era: Era, { client, skills, messages }: Connection): Promise<void> {
  expect(client.getNegotiatedProtocolVersion()).toBe(era);
  expect(skills.supported).toBe(true);
  expect(skills.directoryRead).toBe(true);

  const { resources } = await client.listResources();
  expect(resources.map((r) => [r.uri, r.name, r.mimeType])).toEqual([
    [PDF, "pdf-processing", "text/markdown"],
    [REFUNDS, "refunds", "text/markdown"],
    ["test://own", "own", undefined],
  ]);
  const read = await client.readResource({ uri: PDF });
  expect(read.contents).toEqual([{ uri: PDF, mimeType: "text/markdown", text: PDF_MD }]);
  expect((await client.readResource({ uri: "test://own" })).contents).toEqual([
    { uri: "test://own", text: "own" },
  ]);

  // Every page (one skill each), then the second page alone by its cursor.
  const listing = await skills.list();
  expect(listing.invalid).toEqual([]);
  expect(listing.skills.map((s) => s.uri)).toEqual([PDF, REFUNDS]);
  const pages = exchanges(messages(), "skills/list");
  expect(pages).toHaveLength(2);
  const cursor = nextCursorOf(pages[0]?.answer);
  expect(pages[1]?.request.params?.cursor).toBe(cursor);
  const second = await skills.list({ cursor: cursor as string });
  expect(second.skills.map((s) => s.uri)).toEqual([REFUNDS]);
  expect(second.nextCursor).toBeUndefined();
  if (era === MODERN) expect(second).toMatchObject({ ttlMs: 0, cacheScope: "public" });

  const { skill } = await skills.get(PDF);
  expect(skill).toEqual(listing.skills[0]);
  const manifest = await skills.read(skill);
  expect(manifest.verified).toBe(true);
  expect(manifest.frontmatter).toEqual(skill.frontmatter);
  expect((await skills.read(skill, "references/FORMS.md")).text).toBe(FORMS);
  expect((await skills.read(skill, "assets/logo.bin")).bytes).toEqual(LOGO);
  const refunds = (await skills.get(REFUNDS)).skill;
  const policy = await skills.read(refunds, "references/POLICY.md");
  expect(policy).toMatchObject({ verified: true, text: POLICY });

  const folder = await skills.readDirectory("skill://pdf-processing");
  expect(folder.resources.map((r) => [r.name, r.mimeType])).toEqual([
    ["SKILL.md", "text/markdown"],
    ["assets", "inode/directory"],
    ["references", "inode/directory"],
  ]);
  const references = await skills.readDirectory("skill://pdf-processing/references");
  expect(references.resources.map((r) => r.uri)).toEqual(["skill://pdf-processing/references/FORMS.md"]);
}

describe.each([
  ["http", MODERN],
  ["http", LEGACY],
  ["in-process", MODERN],
  ["in-process", LEGACY],
] as const)("official v2 SkillsClient -> mcpkit skills on a ServerBuilder over %s, %s", (transport, era) => {
  it("lists (paged), gets, reads and verifies, walks directories, beside the server's own resource", async () => {
    await exercise(era, await connect[transport](era));
  });
});

describe.each([MODERN, LEGACY] as const)(
  "official v2 SkillsClient -> mcpkit skills over stdio, %s",
  (era) => {
    const logs = useWireLogs();

    it("lists (paged), gets, reads and verifies, walks directories, beside the server's own resource", async () => {
      const client = officialClient(era);
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [builtFixture("skills-server"), root()],
          env: { MCPKIT_FIXTURE_WIRE_LOG: logs.dir(), MCPKIT_SKILLS_PAGE_SIZE: "1" },
          stderr: "pipe",
        }),
      );
      logs.track(() => client.close());
      const messages = () => {
        const kept = logs.read().filter((log) => log.requests("skills/list").length > 0);
        return kept.flatMap((log) => log.frames.map((frame) => frame.message));
      };
      await exercise(era, { client, skills: new SkillsClient(client), messages });
      const [served] = logs.read().filter((log) => log.requests("skills/list").length > 0);
      expect(served?.era).toBe(era);
    });
  },
);
