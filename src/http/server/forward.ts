import { isObject } from "../../jsonrpc/message.js";
import {
  BusSubscription,
  type ClusterBus,
  clusterUnavailable,
  instanceId,
  type ServerLogger,
} from "../../server/port.js";
import type { Answer } from "./answer.js";
import type { RequestView } from "./view.js";
import { bodyTooLarge } from "./view.js";

const CHANNEL = "mcp:fwd:";
const encoder = new TextEncoder();

/** Bounds of one forwarded request, on the instance that received it. */
export interface ForwardTiming {
  /** The owner must acknowledge within this (it does at once when it is alive and subscribed). */
  readonly ackMs: number;
  /** Then the head of its answer must come within this. */
  readonly headMs: number;
  /** Then no more than this may pass between two frames of a streamed answer (keepalives count). */
  readonly idleMs: number;
}

type Frame =
  | { t: "ack"; id: string }
  | { t: "whole"; id: string; status: number; headers: { [name: string]: string }; body: string | null }
  | { t: "head"; id: string; status: number; headers: { [name: string]: string } }
  | { t: "chunk"; id: string; data: string }
  | { t: "end"; id: string }
  | { t: "cancel"; id: string };

interface ForwardedRequest {
  t: "req";
  id: string;
  from: string;
  method: string;
  host: string | null;
  scheme: string;
  headers: [string, string][];
  body: string | null;
  remoteAddress: string | null;
}

/** A forwarded request's answer on the instance that received it, fed by the owner's frames. */
interface Relay {
  frame(frame: Frame): void;
}

/**
 * Request forwarding between the HTTP handlers of a cluster: each handler listens on its own bus channel
 * (`mcp:fwd:<id>`). A request for a 2025-11-25 session owned by another handler is sent there whole (method,
 * headers, body); the owner runs it through its own pipeline and streams the answer back as frames (a JSON answer
 * in one, an SSE stream as head, chunks and end), which the receiving handler relays to its client. Closing the
 * relayed stream cancels the owner's answer. Every wait is bounded ({@link ForwardTiming}).
 */
export class Forwarder {
  /** This handler's id: the owner recorded for its sessions. */
  readonly id = instanceId();
  private readonly relays = new Map<string, Relay>();
  private readonly serving = new Map<string, () => void>();
  private readonly subscription: BusSubscription;
  /** Resolves once forwarded requests reach this handler. */
  readonly joined: Promise<void>;

  constructor(
    private readonly bus: ClusterBus,
    private readonly serveLocal: (view: RequestView) => Promise<Answer>,
    private readonly timing: ForwardTiming,
    private readonly logger: ServerLogger,
  ) {
    this.subscription = new BusSubscription(bus, CHANNEL + this.id, (raw) => this.receive(raw), logger);
    this.joined = this.subscription.joined;
  }

  /** Stops serving forwarded requests. */
  async close(): Promise<void> {
    for (const cancel of this.serving.values()) cancel();
    await this.subscription.close();
  }

  /**
   * Sends `request` (whose body, already read, is `body`) to `owner` and resolves to the owner's answer, or to
   * `"gone"` when no handler listens as `owner` any more (or it did not acknowledge in time). Rejects with
   * `McpkitError` `UNAVAILABLE` when the bus cannot be reached.
   */
  async forward(owner: string, request: RequestView, body: string | null): Promise<Answer | "gone"> {
    const id = instanceId();
    const headers: [string, string][] = [];
    request.request().headers.forEach((value, name) => {
      headers.push([name, value]);
    });
    const message: ForwardedRequest = {
      t: "req",
      id,
      from: this.id,
      method: request.method,
      host: request.host,
      scheme: request.scheme,
      headers,
      body,
      remoteAddress: request.remoteAddress ?? null,
    };
    const answer = new Promise<Answer | "gone">((resolve) => {
      this.relays.set(id, this.relay(id, owner, request, resolve));
    });
    let receivers: number;
    try {
      receivers = await this.bus.publish(CHANNEL + owner, JSON.stringify(message));
    } catch (error) {
      this.relays.delete(id);
      throw clusterUnavailable("forwarding a request to its session's owner", error);
    }
    if (receivers === 0) {
      this.relays.get(id)?.frame({ t: "cancel", id });
      return "gone";
    }
    return answer;
  }

  private relay(
    id: string,
    owner: string,
    request: RequestView,
    resolve: (answer: Answer | "gone") => void,
  ): Relay {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let settled = false;
    const finish = () => {
      clearTimeout(timer);
      this.relays.delete(id);
    };
    const cancelOwner = () => {
      this.bus.publish(CHANNEL + owner, JSON.stringify({ t: "cancel", id })).catch(() => {});
    };
    const arm = (ms: number, onTimeout: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(onTimeout, ms);
    };
    const giveUp = () => {
      finish();
      cancelOwner();
      if (!settled) {
        settled = true;
        resolve("gone");
      } else {
        try {
          controller?.error(new Error("the session's owner stopped answering"));
        } catch {
          // already closed
        }
      }
    };
    arm(this.timing.ackMs, giveUp);
    const endStream = () => {
      try {
        controller?.close();
      } catch {
        // already closed, or the reader cancelled
      }
    };
    request.onGone(() => {
      if (this.relays.has(id)) {
        finish();
        cancelOwner();
      }
      endStream();
    });
    return {
      frame: (frame) => {
        if (frame.t === "cancel") {
          finish();
          endStream();
          if (!settled) resolve("gone");
          settled = true;
          return;
        }
        if (frame.t === "ack") return arm(this.timing.headMs, giveUp);
        if (frame.t === "whole") {
          finish();
          settled = true;
          return resolve({ status: frame.status, headers: frame.headers, body: frame.body });
        }
        if (frame.t === "head") {
          arm(this.timing.idleMs, giveUp);
          settled = true;
          const body = new ReadableStream<Uint8Array>({
            start: (c) => {
              controller = c;
            },
            cancel: () => {
              finish();
              cancelOwner();
            },
          });
          return resolve({ status: frame.status, headers: frame.headers, body });
        }
        if (frame.t === "chunk") {
          arm(this.timing.idleMs, giveUp);
          return controller?.enqueue(encoder.encode(frame.data));
        }
        finish();
        endStream();
      },
    };
  }

  private receive(raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      return;
    }
    if (!isObject(message) || typeof message.id !== "string") return;
    if (message.t === "req") void this.serveForwarded(message as unknown as ForwardedRequest);
    else if (message.t === "cancel" && this.serving.has(message.id)) this.serving.get(message.id)?.();
    else this.relays.get(message.id)?.frame(message as unknown as Frame);
  }

  private async serveForwarded(message: ForwardedRequest): Promise<void> {
    const reply = (frame: Frame) => this.bus.publish(CHANNEL + message.from, JSON.stringify(frame));
    const gone: (() => void)[] = [];
    let cancelled = false;
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const cancel = () => {
      if (cancelled) return;
      cancelled = true;
      this.serving.delete(message.id);
      for (const callback of gone.splice(0)) callback();
      reader?.cancel().catch(() => {});
    };
    this.serving.set(message.id, cancel);
    try {
      if ((await reply({ t: "ack", id: message.id })) === 0) return cancel();
      const answer = await this.serveLocal(forwardedView(message, gone));
      if (cancelled) return;
      if ("response" in answer) {
        const { status } = answer.response;
        const headers: { [name: string]: string } = {};
        answer.response.headers.forEach((value, name) => {
          headers[name] = value;
        });
        const body = await answer.response.text();
        await reply({ t: "whole", id: message.id, status, headers, body });
      } else if (answer.body === null || typeof answer.body === "string") {
        const { status, headers, body } = answer;
        await reply({ t: "whole", id: message.id, status, headers: { ...headers }, body });
      } else {
        reader = answer.body.getReader();
        if (cancelled) return cancel();
        await reply({ t: "head", id: message.id, status: answer.status, headers: { ...answer.headers } });
        const decoder = new TextDecoder();
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          const data = decoder.decode(next.value, { stream: true });
          if ((await reply({ t: "chunk", id: message.id, data })) === 0) return cancel();
        }
        if (!cancelled) await reply({ t: "end", id: message.id });
      }
    } catch (error) {
      this.logger.debug?.("a forwarded request ended early", { error: String(error) });
      cancel();
    } finally {
      this.serving.delete(message.id);
    }
  }
}

/** The {@link RequestView} of a forwarded request, on its owner. */
function forwardedView(message: ForwardedRequest, gone: (() => void)[]): RequestView {
  const headers = new Map(message.headers.map(([name, value]) => [name.toLowerCase(), value]));
  const bytes = message.body === null ? new Uint8Array(0) : encoder.encode(message.body);
  const host = message.host;
  return {
    method: message.method,
    host,
    scheme: message.scheme,
    remoteAddress: message.remoteAddress ?? undefined,
    forwarded: true,
    header: (name) => headers.get(name) ?? null,
    body: async (maxBytes) => {
      if (bytes.byteLength > maxBytes) throw bodyTooLarge(maxBytes, bytes.byteLength);
      return bytes;
    },
    onGone: (callback) => {
      gone.push(callback);
    },
    request: () =>
      new Request(`${message.scheme}://${host ?? "localhost"}/`, {
        method: message.method,
        headers: message.headers,
        ...(message.body === null || message.method === "GET" ? {} : { body: message.body }),
      }),
  };
}
