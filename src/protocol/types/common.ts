import type { JsonObject, JsonValue, RequestId } from "../../jsonrpc/message.js";

/**
 * Every MCP object type here is open: members mcpkit does not know are kept and sent on unchanged, so a newer
 * peer's fields survive a round trip through us.
 */
export interface Open {
  [key: string]: unknown;
}

/** `_meta` on any object: free-form, reserved keys per the spec. */
export type MetaObject = { [key: string]: unknown };

/** The token a request's `_meta.progressToken` names; progress notifications for it carry the same token. */
export type ProgressToken = string | number;
/** An opaque pagination cursor: pass a list result's `nextCursor` back unchanged. */
export type Cursor = string;
export type { JsonObject, JsonValue, RequestId };

/** Who the message is for, and how important it is. */
export interface Annotations extends Open {
  audience?: Role[];
  priority?: number;
  lastModified?: string;
}

/** Who a message or an annotation's audience is: the user or the assistant. */
export type Role = "user" | "assistant";

/** An icon a client may display. */
export interface Icon extends Open {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

/** A name, an optional display title and icons. */
export interface Implementation extends Open {
  name: string;
  version: string;
  title?: string;
  description?: string;
  websiteUrl?: string;
  icons?: Icon[];
}

/** Log severities, in syslog order. */
export type LoggingLevel =
  | "debug"
  | "info"
  | "notice"
  | "warning"
  | "error"
  | "critical"
  | "alert"
  | "emergency";

/** Every {@link LoggingLevel}, least severe first. */
export const LOGGING_LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

/** Cache hints of a 2026-07-28 cacheable result. mcpkit clients return them and never cache. */
export interface CacheHints {
  /** How long the result may be reused, in milliseconds (0 = do not store). */
  ttlMs: number;
  /** `public` may be shared across principals; `private` may not. Unknown values are kept. */
  cacheScope: "public" | "private" | (string & {});
}

/** A result's discriminator in 2026-07-28 (absent in 2025-11-25, which means `complete`). */
export type ResultType = "complete" | "input_required" | (string & {});

/** Members every result may carry. */
export interface ResultBase extends Open {
  _meta?: MetaObject;
  /** Present on 2026-07-28 results. */
  resultType?: ResultType;
}

/** A list result page. */
export interface Paginated {
  nextCursor?: Cursor;
}
