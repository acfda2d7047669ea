import { McpkitError } from "../../jsonrpc/errors.js";
import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import type { JsonRpcMessage } from "../../jsonrpc/message.js";
import { type RevisionTraits, revisionTraits } from "../../protocol/revisions.js";
import { McpHeader } from "../../protocol/routing-headers.js";
import type { TransportLogger } from "../../transports/transport.js";
import { type Route, readStreamAnswer } from "./answer.js";
import type { HttpRequester, OpenResponse } from "./requester.js";

/** The longest `retry:` delay honoured before reconnecting a stream (a server may ask for less, never more). */
export const MAX_RETRY_DELAY_MS = 30_000;
/** The reconnection delay when a stream that carried event ids sent no `retry:` field. */
export const DEFAULT_RETRY_DELAY_MS = 1_000;
/** Resumptions of one POST stream (SEP-1699) before the request fails. */
export const MAX_RESUMPTIONS = 3;
/** Consecutive reconnections of the session's GET stream that brought nothing before the listener stops. */
export const MAX_LISTENER_RECONNECTS = 3;
/** The shortest wait before the GET stream is reopened, whatever `retry:` says (no tight reconnect loop). */
const MIN_LISTENER_DELAY_MS = 100;
const MAX_SESSION_ID_LENGTH = 1_024;

/**
 * The state of a 2025 (stateful) connection over Streamable HTTP: the revision `initialize` agreed, the
 * `Mcp-Session-Id` the server minted, the GET stream that carries server-to-client requests and notifications,
 * and the session's end (a best-effort DELETE).
 */
export class LegacySession {
  /** The agreed revision; undefined until `initialize` succeeded. */
  version: string | undefined;
  /** The session id, when the server minted one. */
  id: string | undefined;
  /** The params of the client's `initialize`, repeated when an expired session is re-initialized. */
  initializeParams: { [key: string]: unknown } | undefined;
  private listener: AbortController | undefined;
  private listening: Promise<void> = Promise.resolve();
  private generation = 0;

  constructor(
    private readonly requester: HttpRequester,
    private readonly route: Route,
    private readonly logger: () => TransportLogger,
    /** Told once when the GET stream of a session gives up for good (not when it is stopped). */
    private readonly listenerFailed: (error: McpkitError) => void = () => {},
  ) {}

  /** The traits of the agreed revision (2025-11-25 before it is known). */
  get traits(): RevisionTraits {
    return revisionTraits(this.version ?? "") ?? (revisionTraits("2025-11-25") as RevisionTraits);
  }

  /** The headers every request of the session carries: its id, and the version from 2025-06-18 on. */
  headers(): { [name: string]: string } {
    const headers: { [name: string]: string } = {};
    if (this.id !== undefined) headers[McpHeader.sessionId] = this.id;
    if (this.version !== undefined && this.traits.versionHeader)
      headers[McpHeader.protocolVersion] = this.version;
    return headers;
  }

  /** Takes the session id from an `initialize` answer's head (visible ASCII only, bounded). */
  adopt(value: string | undefined): void {
    if (value === undefined) {
      this.id = undefined;
      return;
    }
    if (value.length === 0 || value.length > MAX_SESSION_ID_LENGTH || !/^[\x21-\x7e]+$/.test(value)) {
      throw new McpkitError("PROTOCOL", "the server minted a malformed Mcp-Session-Id", {
        details: { reason: "malformed_response" },
      });
    }
    this.id = value;
  }

  /** Opens the session's GET stream (once per session; a new session opens a new one). */
  listen(): void {
    if (this.listener) return;
    const controller = new AbortController();
    this.listener = controller;
    const generation = ++this.generation;
    this.listening = this.runListener(controller.signal, generation).finally(() => {
      if (this.listener === controller) this.listener = undefined;
    });
  }

  /** Stops the GET stream; resolves once its loop has ended. */
  stopListening(): Promise<void> {
    this.generation++;
    this.listener?.abort(new McpkitError("CLOSED", "the listener was stopped"));
    this.listener = undefined;
    return this.listening;
  }

  /**
   * Waits out the server's `retry` delay and resumes a POST stream that ended before its answer, with a GET
   * carrying `Last-Event-ID` (SEP-1699), at most {@link MAX_RESUMPTIONS} times. Resolves with the answer.
   */
  async resume(
    requestId: string | number,
    lastEventId: string,
    retryMs: number | undefined,
    signal: AbortLike | undefined,
  ): Promise<JsonRpcMessage> {
    let from = lastEventId;
    let delay = retryMs;
    for (let attempt = 1; attempt <= MAX_RESUMPTIONS; attempt++) {
      await sleep(retryDelay(delay), signal, this.requester.closing);
      const response = await this.requester.open({
        method: "GET",
        kind: "answer",
        headers: { accept: "text/event-stream", ...this.headers(), "last-event-id": from },
        signal,
      });
      if (response.status !== 200 || response.mediaType !== "text/event-stream") {
        response.discard();
        throw new McpkitError(
          "TRANSPORT",
          `the response stream ended before the answer and resuming it failed (HTTP ${response.status})`,
          { details: { reason: "stream_ended", status: response.status } },
        );
      }
      response.streaming();
      const outcome = await readStreamAnswer(
        response,
        requestId,
        this.requester.policy.maxSseEventBytes,
        true,
        this.route,
      );
      if (outcome.answer) return outcome.answer;
      from = outcome.lastEventId ?? from;
      delay = outcome.retryMs ?? delay;
    }
    throw new McpkitError(
      "TRANSPORT",
      `the response stream ended ${MAX_RESUMPTIONS} times before the answer`,
      {
        details: { reason: "stream_ended", attempts: MAX_RESUMPTIONS },
      },
    );
  }

  /** Ends the session on the server: a best-effort DELETE whose failure is logged, never thrown. */
  async end(): Promise<void> {
    const id = this.id;
    if (id === undefined) return;
    this.id = undefined;
    try {
      const response = await this.requester.open({
        method: "DELETE",
        kind: "prompt",
        headers: this.headersFor(id),
        final: true,
      });
      response.discard();
      if (response.status === 405)
        this.logger().debug?.("the server does not let clients end sessions (405)");
      else if (response.status >= 300) {
        this.logger().warn("ending the session failed", { status: response.status });
      }
    } catch (error) {
      this.logger().warn("ending the session failed", failureDetails(error));
    }
  }

  private headersFor(id: string): { [name: string]: string } {
    const headers = this.headers();
    headers[McpHeader.sessionId] = id;
    return headers;
  }

  /**
   * The GET stream's loop: reopens a stream that ended (after the server's `retry`, at least 100 ms) until
   * {@link MAX_LISTENER_RECONNECTS} reopenings in a row bring nothing. A 405 means the server offers no GET
   * stream: the session goes on without one, silently. Every other end that is not a stop (the request
   * failing, another status, a broken stream, the reopenings exhausted) is reported to `listenerFailed`.
   */
  private async runListener(signal: AbortSignal, generation: number): Promise<void> {
    const failed = (error: McpkitError) => {
      if (!signal.aborted && generation === this.generation) this.listenerFailed(error);
    };
    let lastEventId: string | undefined;
    let retryMs: number | undefined;
    let quiet = 0;
    while (!signal.aborted && generation === this.generation) {
      let response: OpenResponse;
      try {
        const headers: { [name: string]: string } = { accept: "text/event-stream", ...this.headers() };
        if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
        response = await this.requester.open({ method: "GET", kind: "listen", headers, signal });
      } catch (error) {
        failed(listenerError("the session's GET stream could not open", { cause: error }));
        return;
      }
      if (response.status !== 200 || response.mediaType !== "text/event-stream") {
        response.discard();
        const { status } = response;
        if (status === 405) {
          // The server offers no GET stream (the spec allows it); the session goes on without one.
          this.logger().debug?.("the server offers no GET stream for the session", { status });
        } else {
          failed(
            listenerError(`the server answered the session's GET stream with HTTP ${status}`, { status }),
          );
        }
        return;
      }
      let delivered = 0;
      try {
        const outcome = await readStreamAnswer(
          response,
          undefined,
          this.requester.policy.maxSseEventBytes,
          false,
          (message) => {
            delivered++;
            this.route(message);
          },
        );
        lastEventId = outcome.lastEventId ?? lastEventId;
        retryMs = outcome.retryMs ?? retryMs;
      } catch (error) {
        // A stream silent past streamIdleTimeoutMs is likely dead underneath: it is reopened, as one that ended.
        if (!isStreamIdle(error)) {
          failed(listenerError("the session's GET stream failed", { cause: error }));
          return;
        }
        this.logger().debug?.(
          "the session's GET stream was silent too long; reopening it",
          failureDetails(error),
        );
      }
      quiet = delivered > 0 ? 0 : quiet + 1;
      if (quiet >= MAX_LISTENER_RECONNECTS) {
        failed(
          listenerError("the session's GET stream keeps ending; it is not reopened", { reconnects: quiet }),
        );
        return;
      }
      try {
        await sleep(Math.max(MIN_LISTENER_DELAY_MS, retryDelay(retryMs)), signal);
      } catch {
        return;
      }
    }
  }
}

function isStreamIdle(error: unknown): boolean {
  return error instanceof McpkitError && error.code === "TIMEOUT" && error.details?.timeout === "streamIdle";
}

/** The delay before reconnecting: the server's `retry`, bounded, or the default. */
export function retryDelay(retryMs: number | undefined): number {
  if (retryMs === undefined) return DEFAULT_RETRY_DELAY_MS;
  return Math.min(Math.max(0, retryMs), MAX_RETRY_DELAY_MS);
}

/** Waits `ms`, or rejects with the reason of the first signal that aborts first. */
export function sleep(ms: number, ...signals: Array<AbortLike | undefined>): Promise<void> {
  const present = signals.filter((signal): signal is AbortLike => signal !== undefined);
  const aborted = present.find((signal) => signal.aborted);
  if (aborted) return Promise.reject(aborted.reason);
  return new Promise((resolve, reject) => {
    const detach = () => {
      for (const signal of present) signal.removeEventListener("abort", onAbort);
    };
    const onAbort = () => {
      clearTimeout(timer);
      detach();
      reject(present.find((signal) => signal.aborted)?.reason);
    };
    const timer = setTimeout(() => {
      detach();
      resolve();
    }, ms);
    for (const signal of present) signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** What a log line may say about a failure: its code and stable reason, never a message that could quote secrets. */
export function failureDetails(error: unknown): { [key: string]: unknown } {
  if (error instanceof McpkitError) {
    return { code: error.code, ...(error.details?.reason ? { reason: error.details.reason } : {}) };
  }
  return { error: error instanceof Error ? error.name : typeof error };
}

/**
 * The error of a GET stream that gave up: `TRANSPORT`, `details.reason` `"listener_failed"`, with the HTTP
 * `status` or the number of empty `reconnects` when that is why, and the underlying failure as `cause`.
 */
function listenerError(
  message: string,
  why: { status?: number; reconnects?: number; cause?: unknown },
): McpkitError {
  const { cause, ...details } = why;
  return new McpkitError("TRANSPORT", message, {
    details: { reason: "listener_failed", ...details },
    ...(cause === undefined ? {} : { cause }),
  });
}
