import { afterEach, describe, expect, it } from "vitest";
import { configError } from "../../../test/support/config-error.js";
import { connectInProcess } from "../../../test/support/in-process-client.js";
import { JsonRpcError } from "../../jsonrpc/errors.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import { ServerBuilder } from "../authoring/builder.js";
import type { Server } from "../server.js";
import { createServer } from "../server.js";
import { defineExtension } from "./extension.js";
import type { ExtensionResources } from "./extension-resources.js";

const serverInfo = { name: "t", version: "1" };
const NOTE = "notes://ext/1";

/** An extension serving one resource and one template of its own. */
function notesExtension(options: { eras?: readonly Era[]; uris?: boolean } = {}) {
  const reads: string[] = [];
  const resources: ExtensionResources = {
    list: () => [{ uri: NOTE, name: "ext note" }],
    templates: [{ uriTemplate: "notes://ext/{id}", name: "ext notes" }],
    read: ({ uri }) => {
      reads.push(uri);
      return uri.startsWith("notes://ext/") ? { contents: [{ uri, text: `ext ${uri}` }] } : undefined;
    },
  };
  if (options.uris !== false) resources.uris = () => [NOTE];
  const extension = defineExtension({
    id: "com.example/notes",
    ...(options.eras ? { eras: options.eras } : {}),
    resources,
  });
  return { extension, reads };
}

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

const connect = (server: Server, era: Era) =>
  connectInProcess(server, { protocolVersion: era }, (...close) => closers.push(...close));

/** A builder with a fixed resource, a template with a list callback, and the notes extension. */
function builder(extension = notesExtension().extension) {
  return new ServerBuilder({ serverInfo, pageSize: 2 })
    .extension(extension)
    .resource({ uri: "own://fixed", name: "fixed" }, (uri) => ({ contents: [{ uri, text: "fixed" }] }))
    .resourceTemplate(
      { uriTemplate: "own://items/{id}", name: "item" },
      (uri, { id }) => ({ contents: [{ uri, text: `item ${id}` }] }),
      { list: () => ({ resources: [{ uri: "own://items/7", name: "seven" }] }) },
    );
}

describe.each([MODERN_VERSION, LEGACY_VERSION] as const)("extension resources, %s", (era) => {
  it("a builder lists its own resources and templates after the extension's, pages untouched", async () => {
    const client = await connect(builder().build(), era);
    expect(client.serverCapabilities?.resources).toBeDefined();
    const first = await client.listResources();
    expect(first.resources.map((r) => r.uri)).toEqual([NOTE, "own://fixed", "own://items/7"]);
    expect(first.nextCursor).toBeUndefined();
    const templates = await client.listResourceTemplates();
    expect(templates.resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "notes://ext/{id}",
      "own://items/{id}",
    ]);
  });

  it("routes reads: the extension's URIs to it, every other URI to the builder's resources", async () => {
    const { extension, reads } = notesExtension();
    const client = await connect(builder(extension).build(), era);
    expect((await client.readResource(NOTE)).contents).toEqual([{ uri: NOTE, text: `ext ${NOTE}` }]);
    expect((await client.readResource("notes://ext/9")).contents[0]).toMatchObject({
      text: "ext notes://ext/9",
    });
    expect((await client.readResource("own://fixed")).contents).toEqual([
      { uri: "own://fixed", text: "fixed" },
    ]);
    expect((await client.readResource("own://items/3")).contents[0]).toMatchObject({ text: "item 3" });
    const error = await client.readResource("own://missing").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
    expect((error as JsonRpcError).code).toBe(era === MODERN_VERSION ? -32602 : -32002);
    expect(reads).toEqual([NOTE, "notes://ext/9", "own://fixed", "own://items/3", "own://missing"]);
  });

  it("a dynamic server merges them too, and later registrations are listed beside them", async () => {
    const server = builder().buildDynamic();
    const client = await connect(server, era);
    server.resources.add({ uri: "own://late", name: "late" }, (uri) => ({
      contents: [{ uri, text: "late" }],
    }));
    const first = await client.listResources();
    expect(first.resources.map((r) => r.uri)).toEqual([NOTE, "own://fixed", "own://late"]);
    expect(first.nextCursor).toBeDefined();
    const second = await client.listResources({ cursor: first.nextCursor as string });
    expect(second.resources.map((r) => r.uri)).toEqual(["own://items/7"]);
    expect((await client.readResource("own://late")).contents[0]).toMatchObject({ text: "late" });
    expect((await client.readResource(NOTE)).contents[0]).toMatchObject({ text: `ext ${NOTE}` });
  });

  it("createServer merges them into a hand-written handler and declares resources", async () => {
    const client = await connect(
      createServer({
        serverInfo,
        extensions: [notesExtension().extension],
        handler: {
          listTools: () => ({ tools: [] }),
          callTool: () => ({ content: [] }),
        },
      }),
      era,
    );
    expect(client.serverCapabilities?.resources).toEqual({});
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([NOTE]);
    expect((await client.listResourceTemplates()).resourceTemplates).toHaveLength(1);
    expect((await client.listTools()).tools).toEqual([]);
  });

  it("an extension of the other era only lists and reads nothing here", async () => {
    const other = era === MODERN_VERSION ? LEGACY_VERSION : MODERN_VERSION;
    const client = await connect(builder(notesExtension({ eras: [other] }).extension).build(), era);
    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual([
      "own://fixed",
      "own://items/7",
    ]);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(["item"]);
    const error = await client.readResource(NOTE).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JsonRpcError);
  });
});

describe("collisions with an extension's resources are refused", () => {
  const text = (uri: string) => ({ contents: [{ uri, text: "" }] });

  it("a fixed resource at a URI the extension serves, whichever was registered first", () => {
    const error = configError(() =>
      new ServerBuilder({ serverInfo })
        .resource({ uri: NOTE, name: "mine" }, text)
        .extension(notesExtension().extension)
        .build(),
    );
    expect(error.message).toBe(`resource ${NOTE} is served by extension "com.example/notes"`);
    expect(error.details).toMatchObject({
      key: NOTE,
      extension: "com.example/notes",
      reason: "resource_collision",
    });
    configError(() =>
      new ServerBuilder({ serverInfo, extensions: [notesExtension().extension] })
        .resource({ uri: NOTE, name: "mine" }, text)
        .buildDynamic(),
    );
  });

  it("a template that matches a URI the extension serves, or equals its template", () => {
    const matching = configError(() =>
      builder().resourceTemplate({ uriTemplate: "notes://{+path}", name: "all" }, text).build(),
    );
    expect(matching.message).toMatch(
      /^resource template notes:\/\/\{\+path\} matches notes:\/\/ext\/1, which is served/,
    );
    const equal = configError(() =>
      new ServerBuilder({ serverInfo })
        .extension(notesExtension({ uris: false }).extension)
        .resourceTemplate({ uriTemplate: "notes://ext/{id}", name: "same" }, text)
        .build(),
    );
    expect(equal.details).toMatchObject({ key: "notes://ext/{id}", reason: "resource_collision" });
    // Without `uris`, a template that would match is not known to collide: the extension is asked first.
    new ServerBuilder({ serverInfo })
      .extension(notesExtension({ uris: false }).extension)
      .resourceTemplate({ uriTemplate: "notes://{+path}", name: "all" }, text)
      .build();
  });

  it("a dynamic server refuses them at run time, and keeps what it had", () => {
    const server = builder().buildDynamic();
    configError(() => server.resources.add({ uri: NOTE, name: "mine" }, text));
    configError(() => server.resourceTemplates.add({ uriTemplate: "notes://ext/{+rest}", name: "t" }, text));
    const item = server.resourceTemplates.get("own://items/{id}");
    configError(() => item?.update({ uriTemplate: "notes://{+rest}" }));
    expect(server.resources.list().map((r) => r.uri)).toEqual(["own://fixed"]);
    expect(server.resourceTemplates.list().map((t) => t.uriTemplate)).toEqual(["own://items/{id}"]);
  });

  it("two extensions serving the same URI or template", () => {
    const twin = (id: string) =>
      defineExtension({ id, resources: { read: () => undefined, uris: () => [NOTE], templates: [] } });
    const error = configError(() =>
      createServer({ serverInfo, handler: {}, extensions: [twin("com.example/a"), twin("com.example/b")] }),
    );
    expect(error.message).toBe(`resource ${NOTE} is served by both "com.example/a" and "com.example/b"`);
    const withTemplate = (id: string) =>
      defineExtension({
        id,
        resources: { read: () => undefined, templates: [{ uriTemplate: "x://{a}", name: "x" }] },
      });
    configError(() =>
      new ServerBuilder({ serverInfo })
        .extension(withTemplate("com.example/a"))
        .extension(withTemplate("com.example/b"))
        .build(),
    );
  });

  it("defineExtension checks the resources it is given", () => {
    configError(() => defineExtension({ id: "com.example/x", resources: {} as never }));
    configError(() =>
      defineExtension({ id: "com.example/x", resources: { read: () => undefined, extra: 1 } as never }),
    );
    configError(() =>
      defineExtension({ id: "com.example/x", resources: { read: () => undefined, list: [] } as never }),
    );
    configError(() =>
      defineExtension({
        id: "com.example/x",
        resources: { read: () => undefined, templates: [{ name: "n" }] } as never,
      }),
    );
  });
});
