import type { ServerLogger } from "../server/options.js";
import type { Server } from "../server/server.js";
import type { Subscription } from "../server/subscription.js";
import type { HttpConfig } from "./options.js";
import type { SessionManager } from "./sessions.js";

/** What the era flows of one handler share. */
export interface Endpoint {
  readonly server: Server;
  readonly config: HttpConfig;
  readonly logger: ServerLogger;
  readonly sessions: SessionManager;
  /** The 2026-07-28 listen streams of this handler (its `close()` ends them gracefully). */
  readonly subscriptions: Set<Subscription>;
  /** True when the request's `Accept` allows an SSE answer (no `Accept` at all does). */
  acceptsSse(request: Request): boolean;
}

/** Whether an `Accept` header admits `text/event-stream` (directly, or through `text/*` or `*\/*`). */
export function acceptsEventStream(accept: string | null): boolean {
  if (accept === null || accept.trim() === "") return true;
  return accept
    .split(",")
    .map((part) => (part.split(";")[0] ?? "").trim().toLowerCase())
    .some((type) => type === "text/event-stream" || type === "text/*" || type === "*/*");
}
