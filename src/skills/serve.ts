import type { Resource } from "../protocol/types/resources.js";
import {
  defineExtension,
  type Extension,
  type RequestEntry,
  resourceNotFound,
  type ServerHandler,
} from "../server/index.js";
import { type SkillsExtension, type SkillsOptions, skillsExtension } from "./extension.js";
import type { SkillSource } from "./source.js";

/** What {@link skillsServer} returns: the extension to register and the resource side to merge. */
export interface SkillsServer {
  /** The `io.modelcontextprotocol/skills` extension: give it to `ServerOptions.extensions` or `builder.extension()`. */
  readonly extension: Extension;
  /**
   * Your handler with the skills' resources merged in: `resources/list` puts every `SKILL.md` first on its first
   * page (then your own listing, cursors untouched), `resources/read` answers a skill file and hands every other
   * URI to your `readResource` (`-32002` when you have none). Your other callbacks are kept as they are.
   */
  handler(base?: ServerHandler): ServerHandler;
  /** The plain handlers, for hosting them elsewhere. */
  readonly skills: SkillsExtension;
}

/**
 * Serves skills on an mcpkit server: the extension's methods (`skills/list`, `skills/get`, and with
 * `directoryRead: true` `resources/directory/read`) and its resources (SEP-2640 skills are resources, so the
 * server also declares `resources`). Same options as {@link skillsExtension}; throws `INVALID_CONFIG` for bad ones.
 *
 * @example
 * const skills = skillsServer(await loadSkillDirectory("./skills"), { directoryRead: true });
 * const server = createServer({
 *   serverInfo: { name: "skills", version: "1.0.0" },
 *   extensions: [skills.extension],
 *   handler: skills.handler({ listTools, callTool }),
 * });
 */
export function skillsServer(source: SkillSource, options?: SkillsOptions): SkillsServer {
  const skills = skillsExtension(source, options);
  const requests: { [method: string]: RequestEntry } = {};
  for (const [method, handler] of Object.entries(skills.requests)) {
    if (handler !== undefined) requests[method] = handler as unknown as RequestEntry;
  }
  const extension = defineExtension({ id: skills.id, settings: { ...skills.settings }, requests });
  return {
    extension,
    skills,
    handler(base = {}) {
      const { listResources, readResource } = base;
      return {
        ...base,
        async listResources(request, context) {
          const own = listResources ? await listResources(request, context) : { resources: [] as Resource[] };
          if (request.cursor !== undefined) return own;
          return { ...own, resources: [...(await skills.resources(context)), ...own.resources] };
        },
        async readResource(request, context) {
          const file = await skills.readResource({ uri: request.uri }, context);
          if (file !== undefined) return file;
          if (readResource) return readResource(request, context);
          throw resourceNotFound(request.uri);
        },
      };
    },
  };
}
