import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import { type ExtensionMap, isExtensionId } from "../../protocol/types/capabilities.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../../protocol/versions.js";
import type {
  CustomNotification,
  CustomRequest,
  CustomRequestHandler,
  NotificationEntry,
  RequestEntry,
} from "./custom.js";
import {
  defineExtension,
  type Extension,
  isExtension,
  notificationTable,
  requestTable,
} from "./extension.js";
import { checkClaimsApart, type ResourceClaims } from "./extension-resources.js";

/** What a server's custom surface is built from (a subset of its options). */
export interface CustomSurfaceOptions {
  extensions?: ExtensionMap | readonly Extension[];
  requests?: { [method: string]: RequestEntry };
  notifications?: { [method: string]: NotificationEntry };
}

/** The checked custom surface: the methods of each era and the extensions each era advertises. */
export interface CustomSurface {
  readonly methods: CustomMethods;
  /** `capabilities.extensions` per era; `undefined` when the era advertises none. */
  readonly advertised: { readonly [era in Era]: ExtensionMap | undefined };
  /** Every extension id, whichever era serves it. */
  readonly all: ExtensionMap | undefined;
  /** The extensions that serve resources of their own, checked apart from each other. */
  readonly claims: readonly ResourceClaims[];
}

/**
 * The custom request and notification handlers of one server, by era: plain `requests`/`notifications` serve
 * both eras, an extension's only the eras it lists. A lookup is one map read.
 */
export class CustomMethods {
  private readonly requests = { [MODERN_VERSION]: new Map(), [LEGACY_VERSION]: new Map() } as {
    [era in Era]: Map<string, CustomRequest>;
  };
  private readonly notifications = { [MODERN_VERSION]: new Map(), [LEGACY_VERSION]: new Map() } as {
    [era in Era]: Map<string, CustomNotification>;
  };

  /** The custom request `method` of `era`, if this server serves one. */
  request(era: Era, method: string): CustomRequest | undefined {
    return this.requests[era].get(method);
  }

  /** The custom notification handler of `method` in `era`, if any. */
  notification(era: Era, method: string): CustomNotification | undefined {
    return this.notifications[era].get(method);
  }

  /** True when `era` has any custom notification handler (transports skip the lookup otherwise). */
  hasNotifications(era: Era): boolean {
    return this.notifications[era].size > 0;
  }

  /** @internal Replaces every request handler by what `wrap` makes of it (a plugin's `customRequest`). */
  wrapRequests(
    wrap: (handler: CustomRequestHandler<never>, method: string) => CustomRequestHandler<never>,
  ): void {
    for (const table of Object.values(this.requests)) {
      for (const [method, entry] of table) {
        table.set(method, Object.freeze({ ...entry, handler: wrap(entry.handler, method) }));
      }
    }
  }

  /** @internal */
  add(
    eras: readonly Era[],
    requests: { readonly [method: string]: CustomRequest },
    notifications: { readonly [method: string]: CustomNotification },
    owner: string,
  ): void {
    for (const era of eras) {
      for (const [method, entry] of Object.entries(requests)) {
        if (this.requests[era].has(method)) throw twice("request", method, owner);
        this.requests[era].set(method, entry);
      }
      for (const [method, entry] of Object.entries(notifications)) {
        if (this.notifications[era].has(method)) throw twice("notification", method, owner);
        this.notifications[era].set(method, entry);
      }
    }
  }
}

/**
 * Checks the custom surface of server options: `extensions` as today's map (advertised in both eras, no
 * methods) or an array of {@link Extension}s (plain objects are passed through `defineExtension`), and the
 * plain `requests`/`notifications`. Throws `INVALID_CONFIG` naming the fault.
 */
export function buildCustomSurface(options: CustomSurfaceOptions): CustomSurface {
  const methods = new CustomMethods();
  methods.add(
    [MODERN_VERSION, LEGACY_VERSION],
    requestTable(options.requests, "server option requests"),
    notificationTable(options.notifications, "server option notifications"),
    "requests",
  );
  const extensions = toExtensions(options.extensions);
  if (options.extensions === undefined) {
    return {
      methods,
      advertised: { [MODERN_VERSION]: undefined, [LEGACY_VERSION]: undefined },
      all: undefined,
      claims: [],
    };
  }
  const all: ExtensionMap = {};
  const modern: ExtensionMap = {};
  const legacy: ExtensionMap = {};
  const claims: ResourceClaims[] = [];
  for (const extension of extensions) {
    if (extension.id in all) {
      throw new McpkitError("INVALID_CONFIG", `extension "${extension.id}" is given twice`, {
        details: { key: "extensions", id: extension.id },
      });
    }
    all[extension.id] = extension.settings;
    if (extension.eras.includes(MODERN_VERSION)) modern[extension.id] = extension.settings;
    if (extension.eras.includes(LEGACY_VERSION)) legacy[extension.id] = extension.settings;
    methods.add(extension.eras, extension.requests, extension.notifications, `extension "${extension.id}"`);
    if (extension.resources !== undefined) claims.push(resourceClaims(extension, extension.resources));
  }
  checkClaimsApart(claims);
  return { methods, advertised: { [MODERN_VERSION]: modern, [LEGACY_VERSION]: legacy }, all, claims };
}

/** The extensions among `option` that serve resources (for a builder's collision checks). */
export function extensionClaims(option: CustomSurfaceOptions["extensions"]): ResourceClaims[] {
  return toExtensions(option).flatMap((extension) =>
    extension.resources === undefined ? [] : [resourceClaims(extension, extension.resources)],
  );
}

function resourceClaims(extension: Extension, resources: ResourceClaims["resources"]): ResourceClaims {
  return { id: extension.id, eras: extension.eras, resources };
}

/**
 * A builder's custom surface: its options' own `requests`, `notifications` and `extensions`, plus what it
 * registered itself (`own`, already checked). A map of extensions becomes advertise-only extensions when `own`
 * adds extension objects. Keys left out of the result were absent from both.
 */
export function mergeCustomSurface(
  options: CustomSurfaceOptions,
  own: {
    requests: { readonly [method: string]: CustomRequest };
    notifications: { readonly [method: string]: CustomNotification };
    extensions: readonly Extension[];
  },
): CustomSurfaceOptions {
  const out: CustomSurfaceOptions = {};
  const { requests, notifications, extensions } = options;
  if (requests !== undefined || Object.keys(own.requests).length > 0)
    out.requests = { ...requests, ...own.requests };
  if (notifications !== undefined || Object.keys(own.notifications).length > 0) {
    out.notifications = { ...notifications, ...own.notifications };
  }
  if (own.extensions.length === 0) {
    if (extensions !== undefined) out.extensions = extensions;
  } else if (extensions === undefined || Array.isArray(extensions)) {
    out.extensions = [...((extensions as readonly Extension[] | undefined) ?? []), ...own.extensions];
  } else {
    const advertised = Object.entries(extensions).map(([id, settings]) => defineExtension({ id, settings }));
    out.extensions = [...advertised, ...own.extensions];
  }
  return out;
}

function toExtensions(option: CustomSurfaceOptions["extensions"]): readonly Extension[] {
  if (option === undefined) return [];
  if (Array.isArray(option)) {
    return option.map((entry: unknown) => (isExtension(entry) ? entry : defineExtension(entry as never)));
  }
  if (!isObject(option)) {
    throw new McpkitError("INVALID_CONFIG", "server option extensions must be an object or an array", {
      details: { key: "extensions" },
    });
  }
  return Object.entries(option).map(([id, settings]) => {
    const key = `extensions["${id}"]`;
    const fault = !isExtensionId(id)
      ? "needs a namespace prefix (vendor/name)"
      : isObject(settings)
        ? undefined
        : "settings must be an object";
    if (fault) throw new McpkitError("INVALID_CONFIG", `server option ${key} ${fault}`, { details: { key } });
    return defineExtension({ id, settings });
  });
}

function twice(kind: string, method: string, owner: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `custom ${kind} "${method}" is registered twice (${owner})`, {
    details: { method, reason: "duplicate_method" },
  });
}
