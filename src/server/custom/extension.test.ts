import { describe, expect, it } from "vitest";
import { z } from "zod";
import { configError } from "../../../test/support/config-error.js";
import { CORE_NOTIFICATION_METHODS, CORE_REQUEST_METHODS } from "../../protocol/methods.js";
import { LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import { ServerBuilder } from "../authoring/builder.js";
import { createServer } from "../server.js";
import { defineNotification, defineRequest } from "./custom.js";
import { defineExtension } from "./extension.js";

const serverInfo = { name: "t", version: "1" };
const ok = () => ({});
const noop = () => {};

describe("reserved method names are refused at build", () => {
  it.each([...CORE_REQUEST_METHODS, ...CORE_NOTIFICATION_METHODS])("request %s", (method) => {
    const error = configError(() => createServer({ serverInfo, handler: {}, requests: { [method]: ok } }));
    expect(error.details).toMatchObject({ method, reason: "reserved_method" });
    configError(() => defineExtension({ id: "com.example/x", requests: { [method]: ok } }));
    configError(() => new ServerBuilder({ serverInfo }).request(method, ok));
  });

  it.each(
    [...CORE_NOTIFICATION_METHODS, "tools/call", "initialize"].filter(
      (method) => method !== "notifications/roots/list_changed",
    ),
  )("notification %s", (method) => {
    configError(() => createServer({ serverInfo, handler: {}, notifications: { [method]: noop } }));
    configError(() => new ServerBuilder({ serverInfo }).notification(method, noop));
  });

  it("refuses rpc.* (JSON-RPC's own) and empty names; lets notifications/roots/list_changed be observed", () => {
    configError(() => createServer({ serverInfo, handler: {}, requests: { "rpc.discover": ok } }));
    configError(() => createServer({ serverInfo, handler: {}, requests: { "": ok } }));
    const server = createServer({
      serverInfo,
      handler: {},
      notifications: { "notifications/roots/list_changed": noop },
      requests: { "tasks/get": ok, "skills/list": ok, "resources/directory/read": ok },
    });
    expect(
      server.config.custom.notification(LEGACY_VERSION, "notifications/roots/list_changed"),
    ).toBeDefined();
    expect(server.config.custom.request(MODERN_VERSION, "resources/directory/read")).toBeDefined();
  });
});

describe("defineExtension", () => {
  it("checks the id, settings, eras, keys and handlers", () => {
    configError(() => defineExtension({ id: "bare" }));
    configError(() => defineExtension({ id: "com.example/x", settings: [] as never }));
    configError(() => defineExtension({ id: "com.example/x", settings: { f: () => 1 } as never }));
    configError(() => defineExtension({ id: "com.example/x", eras: [] }));
    configError(() => defineExtension({ id: "com.example/x", eras: ["2024-11-05" as never] }));
    configError(() => defineExtension({ id: "com.example/x", methods: {} } as never));
    configError(() => defineExtension({ id: "com.example/x", requests: { "x/y": "nope" as never } }));
    configError(() => defineExtension({ id: "com.example/x", notifications: { "x/y": {} as never } }));
  });

  it("freezes a copy of its settings and tables", () => {
    const settings = { nested: { level: 1 } };
    const extension = defineExtension({ id: "com.example/x", settings, requests: { "x/y": ok } });
    settings.nested.level = 2;
    expect(extension.settings).toEqual({ nested: { level: 1 } });
    expect(Object.isFrozen(extension.settings.nested)).toBe(true);
    expect(Object.isFrozen(extension.requests)).toBe(true);
    expect(extension.eras).toEqual([MODERN_VERSION, LEGACY_VERSION]);
  });

  it("keeps a method named __proto__ as an own entry, never a prototype", () => {
    const requests = {};
    Object.defineProperty(requests, "__proto__", { value: ok, enumerable: true });
    const extension = defineExtension({ id: "com.example/x", requests });
    expect(Object.getPrototypeOf(extension.requests)).toBe(null);
    expect(Object.hasOwn(extension.requests, "__proto__")).toBe(true);
  });
});

describe("defineRequest and defineNotification", () => {
  it("refuse unknown options, a missing handler and a bad schema", () => {
    configError(() => defineRequest({ cache: true } as never, ok));
    configError(() => defineRequest({ cacheable: "yes" } as never, ok));
    configError(() => defineRequest({} as never));
    configError(() => defineRequest({ params: 3 as never }, ok));
    configError(() => defineNotification({ params: z.string(), extra: 1 } as never, noop));
    configError(() => defineNotification({} as never));
  });
});

describe("server options: the custom surface", () => {
  it("refuses a method registered twice, across plain requests and extensions, and an extension given twice", () => {
    const ext = defineExtension({ id: "com.example/x", requests: { "x/y": ok } });
    configError(() => createServer({ serverInfo, handler: {}, requests: { "x/y": ok }, extensions: [ext] }));
    configError(() => createServer({ serverInfo, handler: {}, extensions: [ext, ext] }));
    const builder = new ServerBuilder({ serverInfo, requests: { "a/b": ok } });
    configError(() => builder.request("a/b", ok));
    configError(() => new ServerBuilder({ serverInfo }).request("c/d", ok).request("c/d", ok));
    configError(() => new ServerBuilder({ serverInfo }).extension({ id: "com.example/x" } as never));
  });

  it("lets one method name serve each era from different extensions", () => {
    const modern = defineExtension({ id: "com.example/a", eras: [MODERN_VERSION], requests: { "x/y": ok } });
    const legacy = defineExtension({ id: "com.example/b", eras: [LEGACY_VERSION], requests: { "x/y": ok } });
    const server = createServer({ serverInfo, handler: {}, extensions: [modern, legacy] });
    expect(server.config.custom.request(MODERN_VERSION, "x/y")).toBe(modern.requests["x/y"]);
    expect(server.config.custom.request(LEGACY_VERSION, "x/y")).toBe(legacy.requests["x/y"]);
  });

  it("advertises each era's extensions only; the map form stays advertise-only in both", () => {
    const modern = defineExtension({ id: "com.example/a", eras: [MODERN_VERSION], settings: { v: 1 } });
    const both = { id: "com.example/b", settings: { v: 2 } };
    const server = createServer({ serverInfo, handler: {}, extensions: [modern, both as never] });
    expect(server.capabilities.extensions).toEqual({ "com.example/a": { v: 1 }, "com.example/b": { v: 2 } });
    expect(server.config.capabilitiesByEra[MODERN_VERSION].extensions).toEqual(
      server.capabilities.extensions,
    );
    expect(server.config.capabilitiesByEra[LEGACY_VERSION].extensions).toEqual({ "com.example/b": { v: 2 } });
    const legacyOnly = createServer({
      serverInfo,
      handler: {},
      extensions: [defineExtension({ id: "com.example/c", eras: [LEGACY_VERSION] })],
    });
    expect(legacyOnly.config.capabilitiesByEra[MODERN_VERSION]).not.toHaveProperty("extensions");
    const map = createServer({ serverInfo, handler: {}, extensions: { "com.example/m": {} } });
    expect(map.config.capabilitiesByEra[LEGACY_VERSION]).toBe(map.capabilities);
    expect(map.capabilities.extensions).toEqual({ "com.example/m": {} });
    expect(createServer({ serverInfo, handler: {}, extensions: {} }).capabilities.extensions).toEqual({});
    configError(() => createServer({ serverInfo, handler: {}, extensions: "x" as never }));
  });

  it("merges the builder's registrations with the options' own", () => {
    const server = new ServerBuilder({
      serverInfo,
      requests: { "a/one": ok },
      notifications: { "a/seen": noop },
      extensions: { "com.example/map": { k: 1 } },
    })
      .request("a/two", { cacheable: true }, ok)
      .notification("a/other", noop)
      .extension(defineExtension({ id: "com.example/obj", requests: { "a/three": ok } }))
      .build();
    const { custom } = server.config;
    for (const method of ["a/one", "a/two", "a/three"])
      expect(custom.request(MODERN_VERSION, method)).toBeDefined();
    expect(custom.request(LEGACY_VERSION, "a/two")?.cacheable).toBe(true);
    expect(custom.notification(LEGACY_VERSION, "a/other")).toBeDefined();
    expect(server.capabilities.extensions).toEqual({ "com.example/map": { k: 1 }, "com.example/obj": {} });
  });
});
