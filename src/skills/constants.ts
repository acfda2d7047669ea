import { ENVELOPE_BYTES, HTTP_MESSAGE_BYTES } from "../protocol/limits.js";

/** The extension id a server declares under `capabilities.extensions` (SEP-2640). */
export const SKILLS_EXTENSION_ID = "io.modelcontextprotocol/skills";

/** The three methods of the extension. `resources/directory/read` only with `directoryRead: true`. */
export const SKILLS_METHODS = {
  list: "skills/list",
  get: "skills/get",
  directoryRead: "resources/directory/read",
} as const;

/** The `mimeType` of a directory resource (a skill root or one of its subdirectories). */
export const DIRECTORY_MIME_TYPE = "inode/directory";

/** The `mimeType` of a `SKILL.md` resource. */
export const SKILL_MD_MIME_TYPE = "text/markdown";

/** The file every skill has at its root. */
export const SKILL_MD = "SKILL.md";

/** The marker of a skill whose files are generated and carry no digests. */
export const DYNAMIC = "dynamic";

/**
 * The interoperability floors of SEP-2640 §Limits: hosts must accept skills up to them, servers should not exceed
 * them. mcpkit servers refuse to publish beyond them unless raised; mcpkit clients refuse to load beyond them
 * unless raised.
 */
export const SKILL_LIMITS = Object.freeze({
  /** Entries of a skill's `resources` array, `SKILL.md` included. */
  resourcesPerSkill: 512,
  /** The sum of `size` over a skill's `resources` (16 MiB). */
  bytesPerSkill: 16 * 1024 * 1024,
});

/**
 * The default bound of one file a catalogue serves, as `resources/read` carries it (its text JSON-escaped, or its
 * base64 blob, with its `uri` and `mimeType`): a default HTTP server's 8,000,000-byte response, less 64 KiB for
 * the JSON-RPC envelope (7,934,464 bytes). A file over it could never be delivered with the defaults.
 */
export const SKILL_FILE_BYTES = HTTP_MESSAGE_BYTES - ENVELOPE_BYTES;

/** mcpkit's bounds on a skill's `frontmatter` and `_meta` (each): nesting depth, JSON nodes and encoded bytes. */
export const METADATA_LIMITS = Object.freeze({
  depth: 32,
  nodes: 16_384,
  bytes: 1_048_576,
});

/** The Agent Skills bounds on frontmatter fields (counted in characters, i.e. code points). */
export const FRONTMATTER_LIMITS = Object.freeze({
  name: 64,
  description: 1024,
  compatibility: 500,
});

/** The prefix of `frontmatter.metadata` keys reserved for MCP extensions (SEP-2640 defines none). */
export const RESERVED_METADATA_PREFIX = "io.modelcontextprotocol/";
