/**
 * `mcpkit/skills/node`: loads a directory of Agent Skills folders into a `mcpkit/skills` catalogue (Node only).
 */

export {
  LOADER_DEFAULTS,
  type LoadSkillDirectoryOptions,
  loadSkillDirectory,
  readSkillDefinitions,
  type SkillDirectoryReport,
} from "./loader.js";
