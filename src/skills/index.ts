/**
 * `mcpkit/skills`: the Skills extension (SEP-2640, `io.modelcontextprotocol/skills`), server and client side.
 * Platform-neutral; the directory loader is in `mcpkit/skills/node`.
 */

export { DIGEST_PATTERN, skillDigest } from "./bytes.js";
export {
  buildSkillCatalogue,
  createSkillCatalogue,
  SkillCatalogue,
  type SkillCatalogueOptions,
  type SkillDefinition,
  type SkillFileContent,
} from "./catalogue.js";
export {
  getSkill,
  type InvalidSkillEntry,
  LIST_ALL_SKILLS_DEFAULTS,
  type ListAllSkillsOptions,
  listAllSkills,
  listSkills,
  readSkillDirectory,
  type SkillsPage,
  type SkillsRequest,
} from "./client.js";
export {
  DIRECTORY_MIME_TYPE,
  DYNAMIC,
  FRONTMATTER_LIMITS,
  METADATA_LIMITS,
  RESERVED_METADATA_PREFIX,
  SKILL_FILE_BYTES,
  SKILL_LIMITS,
  SKILL_MD,
  SKILL_MD_MIME_TYPE,
  SKILLS_EXTENSION_ID,
  SKILLS_METHODS,
} from "./constants.js";
export {
  type EntryCheckOptions,
  metadataBoundsProblem,
  type SkillCatalogueLimits,
  type SkillLimits,
  skillEntryProblems,
  skillLimitProblem,
} from "./entry.js";
export { SkillVerificationError, type SkillVerificationReason } from "./errors.js";
export {
  type SkillsExtension,
  type SkillsHandlers,
  type SkillsOptions,
  type SkillsRequestHandler,
  skillsExtension,
  skillsHandlers,
} from "./extension.js";
export {
  frontmatterDifferences,
  frontmatterProblems,
  type ParsedSkillMd,
  parseSkillMd,
  SKILL_NAME_PATTERN,
} from "./frontmatter.js";
export { mimeTypeOf } from "./mime.js";
export { renderSkillMd } from "./render.js";
export { type SkillsServer, skillsServer } from "./serve.js";
export { checkSkillsSettings, skillsSettingsOf } from "./settings.js";
export { SkillsClient, type SkillsClientHost } from "./skills-client.js";
export type { SkillSource, SkillsContext } from "./source.js";
export type {
  DirectoryReadParams,
  DirectoryReadResult,
  GetSkillParams,
  GetSkillResult,
  ListSkillsParams,
  ListSkillsResult,
  ModernResultMembers,
  SkillEntry,
  SkillFrontmatter,
  SkillJson,
  SkillResourceEntry,
  SkillsSettings,
} from "./types.js";
export {
  canonicalUri,
  isRegName,
  isWithinSkill,
  type SkillUriParts,
  skillUriParts,
  uriProblem,
} from "./uri.js";
export {
  LoadedSkill,
  type LoadSkillOptions,
  loadSkill,
  readSkillFile,
  type VerifiedSkillFile,
} from "./verify.js";
export { FrontmatterError, parseFrontmatterYaml } from "./yaml.js";
