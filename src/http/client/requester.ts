import { AbortLinks, type AbortTarget } from "../../jsonrpc/abort-links.js";
import type { Clock } from "../../jsonrpc/clock.js";
import { joinChunks } from "../../jsonrpc/codec.js";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { AbortLike } from "../../jsonrpc/lazy-abort.js";
import { limitError } from "../../jsonrpc/limit-error.js";
import { copyInto } from "../../jsonrpc/shallow-copy.js";
import { type QueuedTimeout, sharedTimerQueue, type TimerQueue } from "../../jsonrpc/timer-queue.js";
import { type AuthChallenge, type HttpAuthProvider, MAX_AUTH_RETRIES } from "./auth-provider.js";
import type { HeaderRecord, HttpClient, HttpClientExchange, HttpClientResponse } from "./exchange.js";
import { type AuthHook, type AuthRequest, checkExtraHeaders } from "./headers.js";
import { type HttpClientSecurityPolicy, redactUrl } from "./policy.js";
import { Slots } from "./slots.js";

/**
 * How long one HTTP request may take (the limits themselves: {@link CallControl}). `prompt`: answered at once
 * (DELETE, notification and response POSTs). `answer`: a request POST (and a POST stream's resumption).
 * `listen`: the 2025 session's GET stream. `stream`: a request POST whose answer is a long-lived stream (the
 * 2026-07-28 `subscriptions/listen`).
 */
export type CallKind = "prompt" | "answer" | "listen" | "stream";

/** One HTTP request to the endpoint. */
export interface HttpCall {
  method: "POST" | "GET" | "DELETE";
  kind: CallKind;
  /** The transport's own headers (content negotiation and MCP headers). */
  headers: { [name: string]: string };
  body?: string;
  mcpMethod?: string | undefined;
  /** The operation's end; aborting it ends the request with its reason. */
  signal?: AbortLike | undefined;
  /** The session's closing DELETE: sent even though the transport is closing. */
  final?: true;
}

type Timer = ReturnType<typeof setTimeout>;
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Runs HTTP requests to one endpoint under the policy, on any {@link HttpClient}: no redirects (every 3xx is an
 * error), timeouts by {@link CallKind}, response bytes bounded before decoding, at most `maxConcurrentRequests`
 * in flight, and errors that never carry a header value or the URL's query. When `closing` aborts, every
 * request in flight (and every one waiting for a slot) ends with its reason, and only a `final` one may start.
 */
export class HttpRequester {
  private readonly slots: Slots;
  private readonly shownUrl: string;
  /** The requests in flight. */
  readonly live = new Set<CallControl>();
  /** The caller signals listened to, by call: the one link between a request and its caller's signal. */
  readonly callerLinks = new AbortLinks<CallControl>();

  constructor(
    private readonly url: URL,
    readonly policy: HttpClientSecurityPolicy,
    private readonly http: HttpClient,
    private readonly staticHeaders: HeaderRecord,
    private readonly auth: AuthHook | undefined,
    readonly closing: AbortSignal,
    private readonly provider?: HttpAuthProvider,
    /** The clock of the timeouts; undefined: the runtime's timers (policy settings on shared timer queues). */
    readonly clock?: Clock,
  ) {
    this.slots = new Slots(policy.maxConcurrentRequests);
    this.shownUrl = redactUrl(url);
    closing.addEventListener(
      "abort",
      () => {
        for (const control of this.live) control.abort(closing.reason);
        this.slots.failAll(closing.reason);
      },
      { once: true },
    );
  }

  /** The endpoint as errors may show it. */
  get endpoint(): string {
    return this.shownUrl;
  }

  /** Releases the HTTP stack's pooled connections. */
  shutdown(): void {
    this.http.close?.();
  }

  /**
   * Sends one request and resolves once its head arrived; the body is read through the returned response. With
   * an auth provider, a 401 / 403 goes to it first, and the request is sent again when it says so.
   */
  async open(call: HttpCall): Promise<OpenResponse> {
    const provider = this.provider;
    if (provider === undefined) return this.openOnce(call, undefined);
    const request = this.authRequestOf(call);
    for (let attempt = 0; ; attempt++) {
      const sent = await this.guarded(async () =>
        checkExtraHeaders(await provider.headers(request), "authProvider"),
      );
      const response = await this.openOnce(call, sent);
      const { status } = response;
      if ((status !== 401 && status !== 403) || attempt >= MAX_AUTH_RETRIES) return response;
      const challenge: AuthChallenge = {
        status,
        request,
        header: (name) => response.header(name),
        sent,
        attempt,
      };
      // The head is all the provider reads: the slot is free while it recovers (a login may take minutes).
      response.discard();
      const retry = await this.guarded(() => provider.onChallenge(challenge), call.signal);
      if (retry !== true) {
        const what = call.mcpMethod ?? `a ${call.method}`;
        throw new McpkitError("TRANSPORT", `the server answered ${what} with HTTP ${status}`, {
          details: { reason: status === 401 ? "unauthorized" : "forbidden", status },
        });
      }
    }
  }

  /** Runs a provider step; its own McpkitError passes, anything else is reported by name only (it may quote a secret). */
  private async guarded<T>(step: () => T | Promise<T>, signal?: AbortLike): Promise<T> {
    const aborted = [this.closing, signal].filter((s): s is AbortLike => s !== undefined);
    for (const s of aborted) if (s.aborted) throw s.reason;
    let onAbort: (() => void) | undefined;
    const stop = new Promise<never>((_, reject) => {
      onAbort = () => reject(aborted.find((s) => s.aborted)?.reason);
      for (const s of aborted) s.addEventListener("abort", onAbort, { once: true });
    });
    try {
      return await Promise.race([Promise.resolve().then(step), stop]);
    } catch (error) {
      if (error instanceof McpkitError || aborted.some((s) => s.aborted)) throw error;
      throw new McpkitError("TRANSPORT", "the auth provider failed", {
        details: { reason: "auth_provider_failed" },
      });
    } finally {
      for (const s of aborted) if (onAbort) s.removeEventListener("abort", onAbort);
    }
  }

  private async openOnce(call: HttpCall, provided: HeaderRecord | undefined): Promise<OpenResponse> {
    if (this.closing.aborted && call.final !== true) throw this.closing.reason;
    const release = this.slots.tryAcquire() ?? (await this.slots.acquire(call.signal));
    const control = new CallControl(this, call.kind, call.signal);
    try {
      const auth = this.auth === undefined ? provided : await this.authHeaders(call);
      // Compression is off: the body's bytes are the bytes the limits count.
      const headers: { [name: string]: string } = {};
      copyInto(headers, this.staticHeaders);
      copyInto(headers, auth);
      headers["accept-encoding"] = "identity";
      copyInto(headers, call.headers);
      if (control.aborted) throw control.reason;
      const exchange = this.http.request({
        method: call.method,
        url: this.url,
        headers,
        body: call.body,
        connectTimeoutMs: this.policy.connectTimeoutMs,
      });
      control.attach(exchange);
      let response: HttpClientResponse;
      try {
        response = await exchange.response;
      } catch (error) {
        throw control.failure(error, this.shownUrl);
      }
      if (control.aborted) {
        response.discard();
        throw control.reason;
      }
      control.headArrived();
      const { status } = response;
      if (status === 0 || (status >= 300 && status < 400)) {
        response.discard();
        throw new McpkitError("TRANSPORT", `the server at ${this.shownUrl} answered with a redirect`, {
          details: { reason: "redirect_rejected", status },
        });
      }
      return new OpenResponse(response, control, this.policy, release, this.shownUrl);
    } catch (error) {
      control.dispose();
      release();
      throw error;
    }
  }

  private authRequestOf(call: HttpCall): AuthRequest {
    return call.mcpMethod === undefined
      ? { method: call.method, url: this.shownUrl }
      : { method: call.method, url: this.shownUrl, mcpMethod: call.mcpMethod };
  }

  private async authHeaders(call: HttpCall): Promise<HeaderRecord> {
    if (this.auth === undefined) return {};
    let supplied: unknown;
    try {
      supplied = await this.auth(this.authRequestOf(call));
    } catch {
      // The hook's error may quote its secret: only the fact that it failed is reported.
      throw new McpkitError("TRANSPORT", "the auth hook failed", { details: { reason: "auth_hook_failed" } });
    }
    return checkExtraHeaders(supplied, "auth");
  }
}

/** Which policy setting a timeout is: its name without `TimeoutMs`. */
type TimeoutName = "connect" | "receive" | "request" | "streamIdle";

/**
 * The timers and abort wiring of one HTTP request: a limit on the whole (`totalMs`, from the start) and one on
 * silence (`idleMs`, from the last bytes, keepalive comments included), each `Infinity` when it does not apply.
 * One timer runs at a time: it fires at the nearer limit and, when bytes kept coming, sets itself again for the
 * rest (progress only records the time). The first is a policy setting, shared by every request on one timer
 * ({@link sharedTimerQueue}); a later one is a remainder, on a timer of its own.
 *
 * Before the head: `prompt` and `listen` wait `connectTimeoutMs`; `answer` and `stream` wait `receiveTimeoutMs`
 * of silence within `requestTimeoutMs`. After it: a `prompt` has no limit left; an `answer` in JSON keeps both;
 * an answer in SSE keeps only `receiveTimeoutMs` of silence (the caller's deadline bounds the whole: a long
 * tool may stream progress for minutes); a `listen` and a `stream` in SSE only `streamIdleTimeoutMs`. No
 * request deadline ever ends a long-lived stream.
 */
class CallControl implements AbortTarget {
  aborted = false;
  reason: unknown;
  private exchange: HttpClientExchange | undefined;
  private timer: unknown;
  private queue: TimerQueue | undefined;
  private queued: QueuedTimeout | undefined;
  private readonly clock: Clock | undefined;
  private readonly started: number;
  private last: number;
  private totalMs: number;
  private totalName: TimeoutName;
  private idleMs: number;
  private idleName: TimeoutName = "receive";
  /** The caller's link in the requester (0: none). */
  private callerLink = 0;

  constructor(
    private readonly owner: HttpRequester,
    private readonly kind: CallKind,
    caller: AbortLike | undefined,
  ) {
    this.clock = owner.clock;
    this.started = this.last = this.now();
    owner.live.add(this);
    if (caller?.aborted) {
      this.aborted = true;
      this.reason = caller.reason;
    } else if (caller) {
      this.callerLink = owner.callerLinks.link(this, caller);
    }
    const { policy } = owner;
    if (kind === "answer" || kind === "stream") {
      this.totalMs = policy.requestTimeoutMs;
      this.totalName = "request";
      this.idleMs = policy.receiveTimeoutMs;
    } else {
      this.totalMs = Math.min(policy.connectTimeoutMs, policy.requestTimeoutMs);
      this.totalName = "connect";
      this.idleMs = Number.POSITIVE_INFINITY;
    }
    const first = Math.min(this.totalMs, this.idleMs);
    const queue =
      this.aborted || this.clock !== undefined || first > MAX_TIMER_MS ? undefined : sharedTimerQueue(first);
    if (queue === undefined) this.arm(first);
    else {
      this.queue = queue;
      this.queued = queue.add(this);
    }
  }

  /** The first timer fired ({@link TimeoutTarget}). */
  onTimeout(): void {
    this.queued = undefined;
    this.expire();
  }

  attach(exchange: HttpClientExchange): void {
    this.exchange = exchange;
  }

  /** The caller's signal aborted ({@link AbortLinks}). */
  abortedBy(reason: unknown): void {
    this.abort(reason);
  }

  /** Ends the request (reading stops) with `reason`. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.stopTimer();
    this.exchange?.abort(reason);
  }

  /**
   * The head is here: an `answer` or a `stream` keeps its limits until its body turns out to be an event stream
   * ({@link streaming}); a `prompt` has none left; a `listen` has only `streamIdleTimeoutMs` from now.
   */
  headArrived(): void {
    this.last = this.now();
    const kind = this.kind;
    if (kind === "answer" || kind === "stream") return;
    this.stopTimer();
    this.totalMs = Number.POSITIVE_INFINITY;
    if (kind === "prompt") return;
    this.idleMs = this.owner.policy.streamIdleTimeoutMs;
    this.idleName = "streamIdle";
    this.arm(this.idleMs);
  }

  /**
   * The body is an event stream: an `answer` loses its whole-exchange limit (its silence limit stays); a
   * `stream` has only `streamIdleTimeoutMs` from now.
   */
  streaming(): void {
    if (this.aborted) return;
    this.totalMs = Number.POSITIVE_INFINITY;
    if (this.kind !== "stream") return;
    this.stopTimer();
    this.last = this.now();
    this.idleMs = this.owner.policy.streamIdleTimeoutMs;
    this.idleName = "streamIdle";
    this.arm(this.idleMs);
  }

  /** Bytes arrived: the silence limit starts over. */
  progressed(): void {
    if (this.idleMs !== Number.POSITIVE_INFINITY) this.last = this.now();
  }

  /** Maps what the HTTP stack threw: our own abort reason, its own classified error, or a network failure. */
  failure(error: unknown, shownUrl: string): unknown {
    if (this.aborted) return this.reason;
    if (error instanceof McpkitError) return error;
    // No cause: the platform's error may quote the request.
    const code = networkCode(error);
    return new McpkitError("TRANSPORT", `the HTTP request to ${shownUrl} failed${code ? ` (${code})` : ""}`, {
      details: code ? { reason: "network", code } : { reason: "network" },
    });
  }

  dispose(): void {
    this.stopTimer();
    this.owner.callerLinks.unlink(this.callerLink);
    this.callerLink = 0;
    this.owner.live.delete(this);
  }

  private now(): number {
    return this.clock === undefined ? Date.now() : this.clock.now();
  }

  private stopTimer(): void {
    if (this.queued !== undefined) {
      this.queue?.cancel(this.queued);
      this.queued = undefined;
    }
    if (this.timer === undefined) return;
    if (this.clock === undefined) clearTimeout(this.timer as Timer);
    else this.clock.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    if (ms === Number.POSITIVE_INFINITY || this.aborted) return;
    const delay = Math.max(0, Math.min(ms, MAX_TIMER_MS));
    const expire = () => this.expire();
    this.timer = this.clock === undefined ? setTimeout(expire, delay) : this.clock.setTimeout(expire, delay);
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.now();
    const total = this.totalMs - (now - this.started);
    const idle = this.idleMs - (now - this.last);
    if (total <= 0) this.abort(timeout(this.totalName, this.totalMs));
    else if (idle <= 0) this.abort(timeout(this.idleName, this.idleMs));
    else this.arm(Math.min(total, idle));
  }
}

function timeout(which: TimeoutName, ms: number): McpkitError {
  return new McpkitError(
    "TIMEOUT",
    `the HTTP ${which} timeout of ${ms} ms passed (policy ${which}TimeoutMs)`,
    {
      details: { timeout: which, timeoutMs: ms },
    },
  );
}

function networkCode(error: unknown): string | undefined {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  const code = cause?.code ?? (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" && /^[A-Z0-9_]{1,64}$/.test(code) ? code : undefined;
}

/** A response whose head arrived; its body is read once, bounded, then the request's slot is released. */
export class OpenResponse {
  private finished = false;

  constructor(
    private readonly response: HttpClientResponse,
    private readonly control: CallControl,
    private readonly policy: HttpClientSecurityPolicy,
    private readonly release: () => void,
    private readonly shownUrl: string,
  ) {}

  get status(): number {
    return this.response.status;
  }

  header(name: string): string | undefined {
    return this.response.header(name);
  }

  /** The media type, lowercase, without parameters (`""` when absent). */
  get mediaType(): string {
    return (this.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  }

  /**
   * Says the body is an event stream to read as it comes: from now on silence bounds it, not the request
   * deadline (`receiveTimeoutMs` for an answer, `streamIdleTimeoutMs` for a listen stream).
   */
  streaming(): void {
    this.control.streaming();
  }

  /** Ends the request early (the body is cancelled) with `reason` as what pending reads reject with. */
  abort(reason: unknown): void {
    this.control.abort(reason);
  }

  /**
   * Reads the body, calling `onChunk` per chunk as it arrives; `onChunk` returns `false` once it has what it
   * needs (the rest is released). `whole` bounds the total: the body of a JSON answer or a POST stream
   * (`maxResponseBytes` on the bytes as they arrive, `maxDecodedResponseBytes` after any content decoding); a
   * GET stream passes `false` (its events are bounded one by one). Settles when the body ends.
   */
  async read(onChunk: (chunk: Uint8Array) => boolean, whole: boolean): Promise<void> {
    const control = this.control;
    try {
      const encoded = (this.header("content-encoding") ?? "identity").toLowerCase() !== "identity";
      const declared = Number(this.header("content-length"));
      const { maxResponseBytes, maxDecodedResponseBytes } = this.policy;
      if (whole && Number.isFinite(declared) && declared > maxResponseBytes) {
        throw tooLarge("response_too_large", "maxResponseBytes", maxResponseBytes, declared, false);
      }
      const [limit, reason, option] =
        encoded || maxDecodedResponseBytes < maxResponseBytes
          ? [maxDecodedResponseBytes, "decoded_response_too_large", "maxDecodedResponseBytes"]
          : [maxResponseBytes, "response_too_large", "maxResponseBytes"];
      let total = 0;
      let wire = 0;
      let stopped: { error: unknown } | undefined;
      const take = (chunk: Uint8Array) => {
        try {
          if (control.aborted) throw control.reason;
          control.progressed();
          total += chunk.byteLength;
          if (whole && total > limit) throw tooLarge(reason, option, limit, total, true);
          return onChunk(chunk);
        } catch (error) {
          stopped ??= { error };
          throw error;
        }
      };
      const onWire =
        whole && encoded
          ? (bytes: number) => {
              wire += bytes;
              if (wire > maxResponseBytes) {
                const error = tooLarge(
                  "response_too_large",
                  "maxResponseBytes",
                  maxResponseBytes,
                  wire,
                  true,
                );
                stopped ??= { error };
                throw error;
              }
            }
          : undefined;
      try {
        await this.response.pipe(take, onWire);
      } catch (error) {
        if (stopped) throw stopped.error;
        throw control.failure(error, this.shownUrl);
      }
      if (control.aborted) throw control.reason;
    } finally {
      this.finish();
    }
  }

  /** Reads the whole body (bounded) into one buffer (the chunk itself when there was one). */
  async bytes(): Promise<Uint8Array> {
    // Most bodies come in one chunk: no array is made for them. (An array literal here was pretenured by V8
    // under load, and every body it then held was promoted with it.)
    let first: Uint8Array | undefined;
    let more: Uint8Array[] | undefined;
    let size = 0;
    await this.read((chunk) => {
      size += chunk.byteLength;
      if (first === undefined) first = chunk;
      else if (more === undefined) more = Array.of(first, chunk);
      else more.push(chunk);
      return true;
    }, true);
    if (more !== undefined) return joinChunks(more, size);
    return first ?? new Uint8Array(0);
  }

  /**
   * The first `maxBytes` of the body as UTF-8 text (a character cut at the end is replaced); the rest is
   * released unread. For the text of an error answer.
   */
  async textPrefix(maxBytes: number): Promise<string> {
    const parts: Uint8Array[] = [];
    let size = 0;
    await this.read((chunk) => {
      const taken = chunk.byteLength > maxBytes - size ? chunk.subarray(0, maxBytes - size) : chunk;
      parts.push(taken);
      size += taken.byteLength;
      return size < maxBytes;
    }, false);
    return new TextDecoder().decode(joinChunks(parts, size));
  }

  /** Discards the body and releases the request. */
  discard(): void {
    if (this.finished) return;
    this.response.discard();
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.control.dispose();
    this.release();
  }
}

function tooLarge(
  reason: string,
  option: string,
  limit: number,
  size: number,
  atLeast: boolean,
): McpkitError {
  return limitError(
    "MESSAGE_TOO_LARGE",
    "the HTTP response",
    { option, limit, size },
    { atLeast, extra: { reason } },
  );
}
