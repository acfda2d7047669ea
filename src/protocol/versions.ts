/** The stateless protocol revision: per-request `_meta`, `server/discover`, no sessions. */
export const MODERN_VERSION = "2026-07-28";
/** The stateful protocol revision: `initialize`/`initialized`, sessions. */
export const LEGACY_VERSION = "2025-11-25";

/** A protocol era mcpkit speaks. */
export type Era = typeof MODERN_VERSION | typeof LEGACY_VERSION;

/** Versions a mcpkit server supports, newest first. */
export const SUPPORTED_VERSIONS: readonly Era[] = [MODERN_VERSION, LEGACY_VERSION];

/**
 * Older stateful revisions a mcpkit client accepts from an `initialize` answer (servers in the wild). They use
 * the legacy code path; the server side never offers them.
 */
export const OLDER_LEGACY_VERSIONS: readonly string[] = ["2025-06-18", "2025-03-26"];

/** True when `version` is one of the two eras mcpkit speaks ({@link MODERN_VERSION}, {@link LEGACY_VERSION}). */
export function isEra(version: unknown): version is Era {
  return version === MODERN_VERSION || version === LEGACY_VERSION;
}

/** True for a stateful (initialize-based) revision that a client can talk to. */
export function isLegacyVersion(version: unknown): boolean {
  return version === LEGACY_VERSION || OLDER_LEGACY_VERSIONS.includes(version as string);
}
