import type { Client, RequestOptions } from "../client/index.js";
import { McpkitError } from "../jsonrpc/errors.js";
import {
  getSkill,
  type ListAllSkillsOptions,
  listAllSkills,
  listSkills,
  readSkillDirectory,
  type SkillsRequest,
} from "./client.js";
import { SKILLS_EXTENSION_ID, SKILLS_METHODS } from "./constants.js";
import { skillsSettingsOf } from "./settings.js";
import type { SkillEntry } from "./types.js";
import {
  type LoadedSkill,
  type LoadSkillOptions,
  loadSkill,
  readSkillFile,
  type VerifiedSkillFile,
} from "./verify.js";

/** The part of an mcpkit `Client` the skills client uses. */
export type SkillsClientHost = Pick<Client, "request" | "serverCapabilities">;

/**
 * The host side of the Skills extension over an mcpkit `Client`: lists, gets, loads and reads a server's skills,
 * verifying every file against the held entry. It only calls `skills/*` after the server declared the extension,
 * and `resources/directory/read` only after it declared `directoryRead: true` (otherwise `UNSUPPORTED`, nothing
 * sent). It fetches nothing on its own (no prefetch) and never runs, approves or grants anything.
 *
 * @example
 * const skills = new SkillsClient(client);
 * const { skills: entries } = await skills.listAll();
 * const skill = await skills.load(entries[0]); // verified SKILL.md; skill.readFile(...) for the rest
 */
export class SkillsClient {
  private readonly send: SkillsRequest;

  constructor(private readonly client: SkillsClientHost) {
    this.send = (method, params, options) => client.request(method, params, options);
  }

  /** The server declared the extension (false before `connect()`). */
  get supported(): boolean {
    return skillsSettingsOf(this.client.serverCapabilities) !== undefined;
  }

  /** The server declared `directoryRead: true`. */
  get directoryRead(): boolean {
    return skillsSettingsOf(this.client.serverCapabilities)?.directoryRead === true;
  }

  private sender(method: string, directory = false): SkillsRequest {
    if (!this.supported || (directory && !this.directoryRead)) {
      const what = directory ? `${SKILLS_EXTENSION_ID} with directoryRead: true` : SKILLS_EXTENSION_ID;
      throw new McpkitError("UNSUPPORTED", `${method} needs a server that declared ${what}`, {
        details: { method },
      });
    }
    return this.send;
  }

  /** One page of skills, checked (see `listSkills`). */
  async list(params: { cursor?: string } = {}, options?: RequestOptions) {
    return listSkills(this.sender(SKILLS_METHODS.list), params, options);
  }

  /** Every page of skills, bounded (see `listAllSkills`). */
  async listAll(options?: ListAllSkillsOptions) {
    return listAllSkills(this.sender(SKILLS_METHODS.list), options);
  }

  /** One skill's entry by its `SKILL.md` URI, listed or not (see `getSkill`). */
  async get(uri: string, options?: RequestOptions) {
    return getSkill(this.sender(SKILLS_METHODS.get), uri, options);
  }

  /** Loads a skill through the verifying path (see `loadSkill`). */
  async load(entry: SkillEntry, options?: LoadSkillOptions): Promise<LoadedSkill> {
    return loadSkill(this.sender("resources/read"), entry, options);
  }

  /** Reads and verifies one listed file of a skill (see `readSkillFile`). */
  async readFile(entry: SkillEntry, ref?: string, options?: RequestOptions): Promise<VerifiedSkillFile> {
    return readSkillFile(this.sender("resources/read"), entry, ref, options);
  }

  /** One page of a directory's children; needs `directoryRead` (see `readSkillDirectory`). */
  async readDirectory(uri: string, params: { cursor?: string } = {}, options?: RequestOptions) {
    return readSkillDirectory(this.sender(SKILLS_METHODS.directoryRead, true), uri, params, options);
  }
}
