import {
  defineExtension,
  type Extension,
  type ExtensionResources,
  type RequestContext,
  type RequestEntry,
  type ServerHandler,
  type ServerPlugin,
} from "../server/index.js";
import { type SkillsExtension, type SkillsOptions, skillsExtension } from "./extension.js";
import type { SkillSource } from "./source.js";

/** What {@link skillsServer} returns: the extension to register, with the skills' resources in it. */
export interface SkillsServer {
  /**
   * The `io.modelcontextprotocol/skills` extension: give it to `ServerOptions.extensions` or `builder.extension()`.
   * It carries the skills' resources too, which the server merges with its own: `resources/list` puts every
   * `SKILL.md` first on its first page (then your own listing, cursors untouched), `resources/read` answers a
   * skill file and hands every other URI to your resources (`resource not found` when you have none), and the
   * server declares `resources`. A builder refuses its own resource at a skill file's URI, or a template that
   * matches one (`INVALID_CONFIG`).
   */
  readonly extension: Extension;
  /** The same extension as a plugin: give it to `ServerOptions.plugins` (docs/plugins.md). */
  readonly plugin: ServerPlugin;
  /**
   * Returns `base` as it is: the extension merges the skills' resources by itself. Kept so that code written
   * as `handler: skills.handler(mine)` keeps working.
   */
  handler(base?: ServerHandler): ServerHandler;
  /** The plain handlers, for hosting them elsewhere. */
  readonly skills: SkillsExtension;
}

/**
 * Serves skills on an mcpkit server: the extension's methods (`skills/list`, `skills/get`, and with
 * `directoryRead: true` `resources/directory/read`) and its resources (SEP-2640 skills are resources, so the
 * server also declares `resources`), beside the server's own tools, resources and prompts. Same options as
 * {@link skillsExtension}; throws `INVALID_CONFIG` for bad ones.
 *
 * @example
 * const skills = skillsServer(await loadSkillDirectory("./skills"), { directoryRead: true });
 * const server = new ServerBuilder({ serverInfo: { name: "skills", version: "1.0.0" } })
 *   .extension(skills.extension)
 *   .resource({ uri: "docs://readme", name: "readme" }, (uri) => ({ contents: [{ uri, text: "Hi" }] }))
 *   .build();
 */
export function skillsServer(source: SkillSource, options?: SkillsOptions): SkillsServer {
  const skills = skillsExtension(source, options);
  const requests: { [method: string]: RequestEntry } = {};
  for (const [method, handler] of Object.entries(skills.requests)) {
    if (handler !== undefined) requests[method] = handler as unknown as RequestEntry;
  }
  const resources: ExtensionResources = {
    list: (context: RequestContext) => skills.resources(context),
    read: (request, context) => skills.readResource({ uri: request.uri }, context),
  };
  if (typeof source.uris === "function") resources.uris = () => source.uris?.() ?? [];
  const extension = defineExtension({ id: skills.id, settings: { ...skills.settings }, requests, resources });
  return {
    extension,
    plugin: { name: skills.id, extensions: [extension] },
    skills,
    handler: (base = {}) => base,
  };
}
