import { checkKeys, optionError } from "../../jsonrpc/config-check.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import type { ReadResourceResult, Resource, ResourceTemplate } from "../../protocol/types/resources.js";
import type { RequestContext } from "../core/context.js";
import { resourceNotFound } from "../core/errors.js";
import type { ServerHandler } from "../core/handler.js";

/** @inline */
type Answer<T> = Promise<T> | T;

/**
 * Resources an extension serves beside the server's own (SEP-2640 skills are resources, for one). A server with
 * such an extension declares `resources`, lists them first on the first page of `resources/list` (and the
 * templates first on the first page of `resources/templates/list`), and asks `read` first on every
 * `resources/read`: what it answers is the answer, `undefined` hands the URI to the server's own resources.
 */
export interface ExtensionResources {
  /** The resources to put first on the first page of `resources/list` (a small set: not paged). */
  list?(context: RequestContext): Answer<Resource[]>;
  /** The templates to put first on the first page of `resources/templates/list`. */
  templates?: readonly ResourceTemplate[];
  /** The `resources/read` result of a URI the extension serves, or `undefined` when it serves none there. */
  read(request: { uri: string }, context: RequestContext): Answer<ReadResourceResult | undefined>;
  /**
   * Every URI it serves, when it can enumerate them. A builder then refuses (`INVALID_CONFIG`) a resource
   * registered at one of them, or a template that matches one, at build time and at run time alike.
   */
  uris?(): Iterable<string>;
}

/** The extensions' resources, checked: what a server merges and what a builder checks its own against. */
export interface ResourceClaims {
  readonly id: string;
  readonly eras: readonly string[];
  readonly resources: ExtensionResources;
}

/** Checks an extension's `resources` and returns a frozen copy (`INVALID_CONFIG` for a bad one). */
export function checkExtensionResources(value: unknown, id: string): ExtensionResources {
  const where = `extension "${id}" resources`;
  if (!isObject(value)) throw invalid(where, "must be an object");
  checkKeys(value, ["list", "templates", "read", "uris"], "", `${where}.`);
  const { list, templates, read, uris } = value as Partial<ExtensionResources>;
  if (typeof read !== "function") throw invalid(`${where}.read`, "must be a function");
  for (const [key, fn] of [
    ["list", list],
    ["uris", uris],
  ] as const) {
    if (fn !== undefined && typeof fn !== "function") throw invalid(`${where}.${key}`, "must be a function");
  }
  if (templates !== undefined) {
    const ok =
      Array.isArray(templates) &&
      templates.every((t) => isObject(t) && typeof t.uriTemplate === "string" && typeof t.name === "string");
    if (!ok) throw invalid(`${where}.templates`, "must be an array of {uriTemplate, name}");
  }
  const out: ExtensionResources = { read };
  if (list !== undefined) out.list = list;
  if (templates !== undefined) out.templates = Object.freeze(templates.map((t) => Object.freeze({ ...t })));
  if (uris !== undefined) out.uris = uris;
  return Object.freeze(out);
}

/**
 * Checks the extensions' resources against each other: two extensions may not serve the same URI or list the
 * same template (`INVALID_CONFIG`).
 */
export function checkClaimsApart(claims: readonly ResourceClaims[]): void {
  const owners = new Map<string, string>();
  const templates = new Map<string, string>();
  for (const claim of claims) {
    for (const uri of claim.resources.uris?.() ?? []) {
      const other = owners.get(uri);
      if (other !== undefined && other !== claim.id) throw collision(`resource ${uri}`, other, claim.id, uri);
      owners.set(uri, claim.id);
    }
    for (const { uriTemplate } of claim.resources.templates ?? []) {
      const other = templates.get(uriTemplate);
      if (other !== undefined)
        throw collision(`resource template ${uriTemplate}`, other, claim.id, uriTemplate);
      templates.set(uriTemplate, claim.id);
    }
  }
}

/**
 * The server's own registrations checked against the extensions' resources: a fixed resource at a URI an
 * extension serves, or a template equal to an extension's or matching a URI it serves, is `INVALID_CONFIG`.
 * Returns the checks, run once now for what is registered and again for each later registration.
 */
export function claimGuards(claims: readonly ResourceClaims[]): {
  resource(uri: string): void;
  template(uriTemplate: string, matches: (uri: string) => boolean): void;
} {
  const owners = new Map<string, string>();
  const templates = new Map<string, string>();
  for (const claim of claims) {
    for (const uri of claim.resources.uris?.() ?? []) owners.set(uri, claim.id);
    for (const { uriTemplate } of claim.resources.templates ?? []) templates.set(uriTemplate, claim.id);
  }
  return {
    resource(uri) {
      const owner = owners.get(uri);
      if (owner !== undefined) throw collision(`resource ${uri}`, owner, undefined, uri);
    },
    template(uriTemplate, matches) {
      const owner = templates.get(uriTemplate);
      if (owner !== undefined)
        throw collision(`resource template ${uriTemplate}`, owner, undefined, uriTemplate);
      for (const [uri, id] of owners) {
        if (matches(uri)) {
          throw collision(
            `resource template ${uriTemplate} matches ${uri}, which`,
            id,
            undefined,
            uriTemplate,
          );
        }
      }
    },
  };
}

/**
 * `handler` with the extensions' resources merged in (see {@link ExtensionResources}); an extension's resources
 * take part only in the eras it serves. Other callbacks are kept as they are.
 */
export function withExtensionResources(
  handler: ServerHandler,
  claims: readonly ResourceClaims[],
): ServerHandler {
  const { listResources, readResource, listResourceTemplates } = handler;
  const active = (context: RequestContext) => claims.filter((claim) => claim.eras.includes(context.era));
  const merged: ServerHandler = {
    ...handler,
    async listResources(request, context) {
      const own = listResources ? await listResources(request, context) : { resources: [] };
      if (request.cursor !== undefined) return own;
      const theirs: Resource[] = [];
      for (const claim of active(context)) theirs.push(...((await claim.resources.list?.(context)) ?? []));
      return theirs.length === 0 ? own : { ...own, resources: [...theirs, ...own.resources] };
    },
    async readResource(request, context) {
      for (const claim of active(context)) {
        const answer = await claim.resources.read({ uri: request.uri }, context);
        if (answer !== undefined) return answer;
      }
      if (readResource) return readResource(request, context);
      throw resourceNotFound(request.uri);
    },
  };
  if (listResourceTemplates !== undefined || claims.some((claim) => claim.resources.templates?.length)) {
    merged.listResourceTemplates = async (request, context) => {
      const own = listResourceTemplates
        ? await listResourceTemplates(request, context)
        : { resourceTemplates: [] };
      if (request.cursor !== undefined) return own;
      const theirs = active(context).flatMap((claim) => claim.resources.templates ?? []);
      return theirs.length === 0 ? own : { ...own, resourceTemplates: [...theirs, ...own.resourceTemplates] };
    };
  }
  return merged;
}

function collision(what: string, owner: string, other: string | undefined, key: string): McpkitError {
  const by =
    other === undefined ? `is served by extension "${owner}"` : `is served by both "${owner}" and "${other}"`;
  return new McpkitError("INVALID_CONFIG", `${what} ${by}`, {
    details: { key, extension: owner, reason: "resource_collision" },
  });
}

function invalid(key: string, problem: string): McpkitError {
  return optionError(key, problem);
}
