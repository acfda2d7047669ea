import { optionError } from "../jsonrpc/config-check.js";
import type { ServerCapabilities } from "../protocol/types/capabilities.js";
import { SKILLS_EXTENSION_ID } from "./constants.js";
import type { SkillsSettings } from "./types.js";

/** Keys some drafts wrapped settings in; SEP-2640 puts settings directly under the id. */
const WRAPPER_KEYS = ["config", "specVersion", "stability", "id"];

/**
 * Checks the settings a server declares for the extension (SEP-2640 §Capability): an object whose only key is
 * `directoryRead` (a boolean), with no `config`/`specVersion`/`stability`/`id` wrapper. `{}` declares support with
 * no optional features. Returns a copy; throws `McpkitError` `INVALID_CONFIG`.
 *
 * @example
 * checkSkillsSettings({ directoryRead: true }); // { directoryRead: true }
 */
export function checkSkillsSettings(settings: unknown): SkillsSettings {
  const key = `extensions["${SKILLS_EXTENSION_ID}"]`;
  if (typeof settings !== "object" || settings === null || Array.isArray(settings)) {
    throw optionError(key, "must be an object ({} for no optional features)");
  }
  for (const name of Object.keys(settings)) {
    if (WRAPPER_KEYS.includes(name)) {
      throw optionError(`${key}.${name}`, "is a wrapper key; settings sit directly under the extension id");
    }
    if (name !== "directoryRead") throw optionError(`${key}.${name}`, "is not a setting of the extension");
  }
  const { directoryRead } = settings as { directoryRead?: unknown };
  if (directoryRead !== undefined && typeof directoryRead !== "boolean") {
    throw optionError(`${key}.directoryRead`, "must be a boolean");
  }
  return directoryRead === true ? { directoryRead: true } : {};
}

/**
 * The extension's settings as a server declared them, or `undefined` when it did not declare the extension (or
 * declared something that is not an object). Unknown settings are ignored; `directoryRead` is true only when the
 * server said exactly `true`.
 *
 * @example
 * const settings = skillsSettingsOf(client.serverCapabilities);
 * if (settings?.directoryRead) { ... }
 */
export function skillsSettingsOf(
  capabilities: ServerCapabilities | undefined,
): { directoryRead: boolean } | undefined {
  const declared = capabilities?.extensions?.[SKILLS_EXTENSION_ID];
  if (typeof declared !== "object" || declared === null || Array.isArray(declared)) return undefined;
  return { directoryRead: (declared as { directoryRead?: unknown }).directoryRead === true };
}
