import { McpkitError } from "../jsonrpc/errors.js";
import { isReservedMcpHeader } from "../protocol/routing-headers.js";
import { type HttpClientSecurityPolicy, redactUrl } from "./client-policy.js";

/** A `fetch` as the transport calls it (the platform's by default; tests and proxies may pass their own). */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Request headers as a plain record. */
export type HeaderRecord = { readonly [name: string]: string };

/** What the auth hook is told about the request it supplies headers for. */
export interface AuthRequest {
  readonly method: "POST" | "GET" | "DELETE";
  /** The endpoint, without userinfo or query. */
  readonly url: string;
  /** The JSON-RPC method of a POST, when it carries a request or notification. */
  readonly mcpMethod?: string;
}

/**
 * Supplies request headers per HTTP request (e.g. `authorization: Bearer ...`). Its output is a secret: it never
 * appears in errors or logs (a failing hook is reported by name only), and it can never set a header the
 * transport owns.
 */
export type AuthHook = (request: AuthRequest) => HeaderRecord | undefined | Promise<HeaderRecord | undefined>;

/**
 * How long one HTTP request may take. `prompt`: answered at once (GET resumption, DELETE, notification and
 * response POSTs): the head within `connectTimeoutMs`. `answer`: a request POST: the head and every later
 * chunk within `receiveTimeoutMs` of the previous one, the whole within `requestTimeoutMs`. `listen`: the
 * session's GET stream: the head within `connectTimeoutMs`, then no time limit.
 */
export type CallKind = "prompt" | "answer" | "listen";

/** One HTTP request to the endpoint. */
export interface HttpCall {
  method: "POST" | "GET" | "DELETE";
  kind: CallKind;
  /** The transport's own headers (content negotiation and MCP headers). */
  headers: { [name: string]: string };
  body?: string;
  mcpMethod?: string | undefined;
  /** The operation's end; aborting it ends the request with its reason. */
  signal?: AbortSignal | undefined;
}

type Timer = ReturnType<typeof setTimeout>;

/** Request headers only the transport may set, besides the MCP ones (lowercase). */
const TRANSPORT_HEADERS: ReadonlySet<string> = new Set([
  "accept",
  "accept-encoding",
  "content-type",
  "content-length",
  "host",
  "connection",
  "transfer-encoding",
]);
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * Checks caller-supplied headers: names are HTTP tokens, values carry no CR, LF or NUL, and no name collides
 * (case-insensitively) with a header the transport owns. Errors name the header, never its value.
 */
export function checkExtraHeaders(headers: unknown, source: string): HeaderRecord {
  if (headers === undefined) return {};
  if (typeof headers !== "object" || headers === null || Array.isArray(headers)) {
    throw new McpkitError("INVALID_CONFIG", `${source} must be an object of header names to string values`, {
      details: { key: source },
    });
  }
  const out: { [name: string]: string } = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!TOKEN.test(name)) throw headerProblem(source, name, "is not a valid header name");
    if (isReservedMcpHeader(name) || TRANSPORT_HEADERS.has(name.toLowerCase())) {
      throw headerProblem(source, name, "collides with a header the MCP transport sets");
    }
    if (typeof value !== "string" || /[\r\n\0]/.test(value)) {
      throw headerProblem(source, name, "must be a string without CR, LF or NUL");
    }
    out[name] = value;
  }
  return out;
}

function headerProblem(source: string, name: string, problem: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", `${source}: header ${name} ${problem}`, {
    details: { key: source, header: name, reason: "header_collision" },
  });
}

/** At most `capacity` holders at once; waiters queue in order and leave when their signal aborts. */
export class Slots {
  private used = 0;
  private readonly waiters: Array<() => void> = [];

  constructor(private readonly capacity: number) {}

  /** Resolves with a release function once a slot is free. */
  acquire(signal: AbortSignal | undefined): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.used < this.capacity) {
      this.used++;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        this.used++;
        resolve(this.releaser());
      };
      const onAbort = () => {
        const index = this.waiters.indexOf(grant);
        if (index >= 0) this.waiters.splice(index, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.waiters.push(grant);
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.used--;
      this.waiters.shift()?.();
    };
  }
}

/**
 * Runs HTTP requests to one endpoint under the policy: no redirects (every 3xx is an error), timeouts by
 * {@link CallKind}, response bytes bounded before decoding, at most `maxConcurrentRequests` in flight, and
 * errors that never carry a header value or the URL's query.
 */
export class HttpRequester {
  private readonly slots: Slots;
  private readonly shownUrl: string;

  constructor(
    private readonly url: URL,
    readonly policy: HttpClientSecurityPolicy,
    private readonly fetchImpl: FetchLike,
    private readonly staticHeaders: HeaderRecord,
    private readonly auth: AuthHook | undefined,
  ) {
    this.slots = new Slots(policy.maxConcurrentRequests);
    this.shownUrl = redactUrl(url);
  }

  /** The endpoint as errors may show it. */
  get endpoint(): string {
    return this.shownUrl;
  }

  /** Sends one request and resolves once its head arrived; the body is read through the returned response. */
  async open(call: HttpCall): Promise<OpenResponse> {
    const release = await this.slots.acquire(call.signal);
    const control = new CallControl(this.policy, call.kind, call.signal);
    try {
      // Compression is off: the body's bytes are the bytes the limits count.
      const headers = {
        ...this.staticHeaders,
        ...(await this.authHeaders(call)),
        "accept-encoding": "identity",
        ...call.headers,
      };
      control.throwIfAborted();
      const init: RequestInit = { method: call.method, headers, redirect: "manual", signal: control.signal };
      if (call.body !== undefined) init.body = call.body;
      let response: Response;
      try {
        response = await this.fetchImpl(this.url.href, init);
      } catch (error) {
        throw control.failure(error, this.shownUrl);
      }
      control.headArrived();
      if (response.type === "opaqueredirect" || (response.status >= 300 && response.status < 400)) {
        void response.body?.cancel().catch(() => {});
        throw new McpkitError("TRANSPORT", `the server at ${this.shownUrl} answered with a redirect`, {
          details: { reason: "redirect_rejected", status: response.status },
        });
      }
      return new OpenResponse(response, control, this.policy, release, this.shownUrl);
    } catch (error) {
      control.dispose();
      release();
      throw error;
    }
  }

  private async authHeaders(call: HttpCall): Promise<HeaderRecord> {
    if (this.auth === undefined) return {};
    const request: AuthRequest =
      call.mcpMethod === undefined
        ? { method: call.method, url: this.shownUrl }
        : { method: call.method, url: this.shownUrl, mcpMethod: call.mcpMethod };
    let supplied: unknown;
    try {
      supplied = await this.auth(request);
    } catch {
      // The hook's error may quote its secret: only the fact that it failed is reported.
      throw new McpkitError("TRANSPORT", "the auth hook failed", { details: { reason: "auth_hook_failed" } });
    }
    return checkExtraHeaders(supplied, "auth");
  }
}

/** The timers and abort wiring of one HTTP request. */
class CallControl {
  private readonly controller = new AbortController();
  private idle: Timer | undefined;
  private total: Timer | undefined;
  private readonly cleanups: Array<() => void> = [];

  constructor(
    private readonly policy: HttpClientSecurityPolicy,
    private readonly kind: CallKind,
    caller: AbortSignal | undefined,
  ) {
    if (caller) {
      if (caller.aborted) this.controller.abort(caller.reason);
      else {
        const onAbort = () => this.controller.abort(caller.reason);
        caller.addEventListener("abort", onAbort, { once: true });
        this.cleanups.push(() => caller.removeEventListener("abort", onAbort));
      }
    }
    const headMs =
      kind === "answer"
        ? Math.min(policy.receiveTimeoutMs, policy.requestTimeoutMs)
        : Math.min(policy.connectTimeoutMs, policy.requestTimeoutMs);
    this.idle = this.timer(headMs, kind === "answer" ? "receive" : "connect");
    if (kind === "answer") this.total = this.timer(policy.requestTimeoutMs, "request");
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  throwIfAborted(): void {
    if (this.controller.signal.aborted) throw this.controller.signal.reason;
  }

  /** Ends the request (reading stops) with `reason`. */
  abort(reason: unknown): void {
    this.controller.abort(reason);
  }

  /** The head is here: `prompt` and `listen` calls have no more time limit on the body; `answer` restarts idle. */
  headArrived(): void {
    clearTimeout(this.idle);
    this.idle = undefined;
    if (this.kind === "answer") this.idle = this.timer(this.policy.receiveTimeoutMs, "receive");
  }

  /** Bytes arrived: the receive timer starts over. */
  progressed(): void {
    if (this.kind !== "answer") return;
    clearTimeout(this.idle);
    this.idle = this.timer(this.policy.receiveTimeoutMs, "receive");
  }

  /** Maps what fetch or a read threw: our own abort reason, or a network failure (no cause: it may quote secrets). */
  failure(error: unknown, shownUrl: string): unknown {
    if (this.controller.signal.aborted) return this.controller.signal.reason;
    const code = networkCode(error);
    return new McpkitError("TRANSPORT", `the HTTP request to ${shownUrl} failed${code ? ` (${code})` : ""}`, {
      details: code ? { reason: "network", code } : { reason: "network" },
    });
  }

  dispose(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
    for (const cleanup of this.cleanups.splice(0)) cleanup();
  }

  private timer(ms: number, which: "connect" | "receive" | "request"): Timer | undefined {
    if (!Number.isFinite(ms) || ms > 2_147_483_647) return undefined;
    return setTimeout(() => {
      this.controller.abort(
        new McpkitError("TIMEOUT", `the HTTP ${which} timeout of ${ms} ms passed`, {
          details: { timeout: which, timeoutMs: ms },
        }),
      );
    }, ms);
  }
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
    private readonly response: Response,
    private readonly control: CallControl,
    private readonly policy: HttpClientSecurityPolicy,
    private readonly release: () => void,
    private readonly shownUrl: string,
  ) {}

  get status(): number {
    return this.response.status;
  }

  header(name: string): string | undefined {
    return this.response.headers.get(name) ?? undefined;
  }

  /** The media type, lowercase, without parameters (`""` when absent). */
  get mediaType(): string {
    return (this.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  }

  /** Ends the request early (the body is cancelled) with `reason` as what pending reads reject with. */
  abort(reason: unknown): void {
    this.control.abort(reason);
  }

  /**
   * Reads the body, calling `onChunk` per chunk as it arrives. `whole` bounds the total: the body of a JSON
   * answer or a POST stream (`maxResponseBytes` when nothing was content-decoded, `maxDecodedResponseBytes`
   * always); a GET stream passes `false` (its events are bounded one by one). Settles when the body ends.
   */
  async read(onChunk: (chunk: Uint8Array) => void, whole: boolean): Promise<void> {
    const body = this.response.body;
    try {
      if (body === null) return;
      const encoded = (this.header("content-encoding") ?? "identity").toLowerCase() !== "identity";
      const declared = Number(this.header("content-length"));
      if (whole && Number.isFinite(declared) && declared > this.policy.maxResponseBytes) {
        throw tooLarge("response_too_large", this.policy.maxResponseBytes);
      }
      const [limit, reason] =
        encoded || this.policy.maxDecodedResponseBytes < this.policy.maxResponseBytes
          ? [this.policy.maxDecodedResponseBytes, "decoded_response_too_large"]
          : [this.policy.maxResponseBytes, "response_too_large"];
      const reader = body.getReader();
      const onAbort = () => void reader.cancel().catch(() => {});
      this.control.signal.addEventListener("abort", onAbort, { once: true });
      let total = 0;
      try {
        for (;;) {
          const step = await reader.read().catch((error: unknown) => {
            throw this.control.failure(error, this.shownUrl);
          });
          this.control.throwIfAborted();
          if (step.done) return;
          this.control.progressed();
          total += step.value.byteLength;
          if (whole && total > limit) throw tooLarge(reason, limit);
          onChunk(step.value);
        }
      } catch (error) {
        void reader.cancel().catch(() => {});
        throw error;
      } finally {
        this.control.signal.removeEventListener("abort", onAbort);
      }
    } finally {
      this.finish();
    }
  }

  /** Reads the whole body (bounded) into one buffer. */
  async bytes(): Promise<Uint8Array> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    await this.read((chunk) => {
      chunks.push(chunk);
      size += chunk.byteLength;
    }, true);
    const out = new Uint8Array(size);
    let offset = 0;
    for (const chunk of chunks) {
      out.set(chunk, offset);
      offset += chunk.byteLength;
    }
    return out;
  }

  /** Discards the body and releases the request. */
  discard(): void {
    if (this.finished) return;
    void this.response.body?.cancel().catch(() => {});
    this.finish();
  }

  private finish(): void {
    if (this.finished) return;
    this.finished = true;
    this.control.dispose();
    this.release();
  }
}

function tooLarge(reason: string, limit: number): McpkitError {
  return new McpkitError("MESSAGE_TOO_LARGE", `the HTTP response exceeds the ${limit} byte limit`, {
    details: { reason, limit },
  });
}
