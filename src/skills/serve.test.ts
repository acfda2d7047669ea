import { afterEach, describe, expect, it } from "vitest";
import { connectInProcess } from "../../test/support/in-process-client.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import {
  createServer,
  isExtension,
  type Server,
  ServerBuilder,
  type ServerHandler,
} from "../server/index.js";
import { createSkillCatalogue } from "./catalogue.js";
import { SKILLS_EXTENSION_ID } from "./constants.js";
import { skillsServer } from "./serve.js";
import { SkillsClient } from "./skills-client.js";

const catalogue = await createSkillCatalogue([
  {
    frontmatter: { name: "pdf", description: "PDFs" },
    body: "# PDF\n",
    files: { "references/FORMS.md": "# Forms\n" },
  },
]);
const SKILL = "skill://pdf/SKILL.md";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function connect(handler: ServerHandler, era: Era, directoryRead = true) {
  const skills = skillsServer(catalogue, { directoryRead });
  const server = createServer({
    serverInfo: { name: "s", version: "1" },
    extensions: [skills.extension],
    handler,
  });
  return connectTo(server, era);
}

const connectTo = (server: Server, era: Era) =>
  connectInProcess(server, { protocolVersion: era }, (...close) => closers.push(...close));

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("skillsServer, %s", (era) => {
  it("advertises the extension and resources, and serves the methods", async () => {
    const client = await connect({}, era);
    expect(client.serverCapabilities?.extensions?.[SKILLS_EXTENSION_ID]).toEqual({ directoryRead: true });
    expect(client.serverCapabilities?.resources).toBeDefined();
    const skills = new SkillsClient(client);
    const { skills: entries } = await skills.listAll();
    expect(entries).toEqual(catalogue.entries);
    const [entry] = entries;
    if (entry === undefined) throw new Error("no entry listed");
    const loaded = await skills.load(entry);
    expect((await loaded.readFile("references/FORMS.md")).text).toBe("# Forms\n");
    const root = await skills.readDirectory("skill://pdf");
    expect(root.resources.map((r) => r.name)).toEqual(["SKILL.md", "references"]);
  });

  it("puts the SKILL.md files first on the first page only and passes cursors to the user's listing", async () => {
    const seen: (string | undefined)[] = [];
    const client = await connect(
      {
        listResources: ({ cursor }) => {
          seen.push(cursor);
          return cursor === undefined
            ? { resources: [{ uri: "own://1", name: "one" }], nextCursor: "next" }
            : { resources: [{ uri: "own://2", name: "two" }] };
        },
        readResource: ({ uri }) => ({ contents: [{ uri, text: `own ${uri}` }] }),
      },
      era,
    );
    const first = await client.listResources();
    expect(first.resources.map((r) => r.uri)).toEqual([SKILL, "own://1"]);
    expect(first.nextCursor).toBe("next");
    const second = await client.listResources({ cursor: "next" });
    expect(second.resources.map((r) => r.uri)).toEqual(["own://2"]);
    expect(seen).toEqual([undefined, "next"]);
    expect((await client.readResource("own://2")).contents).toEqual([
      { uri: "own://2", text: "own own://2" },
    ]);
    expect((await client.readResource(SKILL)).contents[0]).toMatchObject({ mimeType: "text/markdown" });
  });

  it("answers resource-not-found (-32602 in 2026, -32002 in 2025) for a URI nothing serves", async () => {
    const client = await connect({}, era);
    const error = await client.readResource("skill://pdf/nope.md").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(era === MODERN_VERSION ? -32602 : -32002);
    expect((error as JsonRpcError).message).not.toMatch(/uri must be/);
  });

  it("keeps the user's other callbacks and leaves resources/directory/read out without directoryRead", async () => {
    const client = await connect(
      {
        listTools: () => ({ tools: [{ name: "t", inputSchema: { type: "object" } }] }),
        callTool: () => ({ content: [] }),
      },
      era,
      false,
    );
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["t"]);
    expect(client.serverCapabilities?.extensions?.[SKILLS_EXTENSION_ID]).toEqual({});
    const error = await client
      .request("resources/directory/read", { uri: "skill://pdf" })
      .catch((e: unknown) => e);
    expect((error as JsonRpcError).code).toBe(-32601);
  });
});

/** A builder with its own fixed resource and listed template, and the skills. */
function skillsBuilder() {
  return new ServerBuilder({ serverInfo: { name: "s", version: "1" } })
    .resource({ uri: "docs://readme", name: "readme" }, (uri) => ({ contents: [{ uri, text: "readme" }] }))
    .resourceTemplate(
      { uriTemplate: "notes://{id}", name: "note" },
      (uri, { id }) => ({ contents: [{ uri, text: `note ${id}` }] }),
      { list: () => ({ resources: [{ uri: "notes://1", name: "one" }] }) },
    )
    .extension(skillsServer(catalogue, { directoryRead: true }).extension);
}

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("skills on a ServerBuilder, %s", (era) => {
  it.each(["build", "buildDynamic"] as const)(
    "%s: lists the skills beside the builder's resources and routes every read",
    async (how) => {
      const client = await connectTo(skillsBuilder()[how](), era);
      expect(client.serverCapabilities?.extensions?.[SKILLS_EXTENSION_ID]).toEqual({ directoryRead: true });
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([SKILL, "docs://readme", "notes://1"]);
      expect(resources[0]).toMatchObject({ name: "pdf", description: "PDFs", mimeType: "text/markdown" });
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual(["notes://{id}"]);
      expect((await client.readResource("docs://readme")).contents[0]).toMatchObject({ text: "readme" });
      expect((await client.readResource("notes://5")).contents[0]).toMatchObject({ text: "note 5" });
      const skills = new SkillsClient(client);
      const [entry] = (await skills.listAll()).skills;
      if (entry === undefined) throw new Error("no entry listed");
      const loaded = await skills.load(entry);
      expect((await loaded.readFile("references/FORMS.md")).text).toBe("# Forms\n");
      expect((await skills.readDirectory("skill://pdf")).resources.map((r) => r.name)).toEqual([
        "SKILL.md",
        "references",
      ]);
    },
  );
});

describe("skills on a ServerBuilder: collisions", () => {
  const text = (uri: string) => ({ contents: [{ uri, text: "" }] });
  const refused = (build: () => unknown, key: string) => {
    const error = (() => {
      try {
        build();
      } catch (e) {
        return e;
      }
      throw new Error("expected INVALID_CONFIG");
    })();
    expect(error).toBeInstanceOf(McpkitError);
    expect(error).toMatchObject({
      code: "INVALID_CONFIG",
      details: { key, extension: SKILLS_EXTENSION_ID, reason: "resource_collision" },
    });
  };

  it("refuses a resource at a skill file's URI and a template matching one, at build and at run time", () => {
    refused(() => skillsBuilder().resource({ uri: SKILL, name: "mine" }, text).build(), SKILL);
    const forms = "skill://pdf/references/FORMS.md";
    refused(() => skillsBuilder().resource({ uri: forms, name: "mine" }, text).buildDynamic(), forms);
    refused(
      () => skillsBuilder().resourceTemplate({ uriTemplate: "skill://{+path}", name: "all" }, text).build(),
      "skill://{+path}",
    );
    const server = skillsBuilder().buildDynamic();
    refused(() => server.resources.add({ uri: SKILL, name: "mine" }, text), SKILL);
    refused(
      () => server.resourceTemplates.add({ uriTemplate: "skill://pdf/{file}", name: "t" }, text),
      "skill://pdf/{file}",
    );
    // Near misses are the builder's own: a directory URI, another scheme, a template no skill file matches.
    skillsBuilder()
      .resource({ uri: "skill://pdf", name: "dir" }, text)
      .resource({ uri: "skills://pdf/SKILL.md", name: "other" }, text)
      .resourceTemplate({ uriTemplate: "skill://{name}", name: "roots" }, text)
      .build();
  });
});

describe("skillsServer options", () => {
  it("returns a checked extension and refuses unknown options", () => {
    expect(isExtension(skillsServer(catalogue).extension)).toBe(true);
    const mine: ServerHandler = { listTools: () => ({ tools: [] }), callTool: () => ({ content: [] }) };
    expect(skillsServer(catalogue).handler(mine)).toBe(mine); // the extension merges the resources itself
    expect(() => skillsServer(catalogue, { prefetch: true } as never)).toThrow(McpkitError);
  });
});
