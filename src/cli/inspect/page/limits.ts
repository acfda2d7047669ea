// What the page keeps of what a server sends, in one place (docs/inspect.md states them; the tests cross them).
// Each store drops its oldest first and says how many it dropped.

/** Most messages in the wire log. */
export const MAX_WIRE = 10_000;
/** Most characters of messages in the wire log, summed (each message is cut at 65,536 by the inspector). */
export const MAX_WIRE_CHARS = 32_000_000;
/** Most history entries, made here or imported. */
export const MAX_HISTORY = 1_000;
/** Most tasks in the Tasks tab. */
export const MAX_TASKS = 200;
/** Most notifications in the Notifications tab. */
export const MAX_NOTIFICATIONS = 500;
/** Most `notifications/resources/updated` lines in the Resources tab. */
export const MAX_UPDATES = 100;
