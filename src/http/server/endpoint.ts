import type { Server, ServerLogger, Subscription } from "../../server/port.js";
import type { SessionDirectory } from "./directory.js";
import type { Forwarder } from "./forward.js";
import type { HttpConfig } from "./options.js";
import type { SessionManager } from "./sessions.js";
import type { RequestView } from "./view.js";

/** What the era flows of one handler share. */
export interface Endpoint {
  readonly server: Server;
  readonly config: HttpConfig;
  readonly logger: ServerLogger;
  readonly sessions: SessionManager;
  /** The 2026-07-28 listen streams of this handler (its `close()` ends them gracefully). */
  readonly subscriptions: Set<Subscription>;
  /** With the server's `cluster`: the shared session directory and this handler's forwarder. */
  readonly cluster: { readonly directory: SessionDirectory; readonly forwarder: Forwarder } | undefined;
  /** What the request's `Accept` admits (no `Accept` at all admits both). */
  accepts(request: RequestView): Accepted;
}

/** The answer formats an `Accept` header admits. */
export interface Accepted {
  readonly sse: boolean;
  readonly json: boolean;
}

const ANY: Accepted = Object.freeze({ sse: true, json: true });

/**
 * Whether an `Accept` header admits `text/event-stream` (directly, or through `text/*` or `*\/*`) and
 * `application/json` (directly, or through `application/*` or `*\/*`).
 */
export function acceptedFormats(accept: string | null): Accepted {
  if (accept === null || accept.trim() === "") return ANY;
  let sse = false;
  let json = false;
  for (const part of accept.split(",")) {
    const type = (part.split(";")[0] ?? "").trim().toLowerCase();
    if (type === "*/*") return ANY;
    if (type === "text/event-stream" || type === "text/*") sse = true;
    else if (type === "application/json" || type === "application/*") json = true;
  }
  return { sse, json };
}

/** {@link acceptedFormats} remembering its last answer: a client sends the same `Accept` on every request. */
export function acceptedFormatsCache(): (accept: string | null) => Accepted {
  let lastAccept: string | null = null;
  let last: Accepted = ANY;
  return (accept) => {
    if (accept !== lastAccept) {
      last = acceptedFormats(accept);
      lastAccept = accept;
    }
    return last;
  };
}
