/**
 * One end of a `postMessage` channel, as the bridge needs it: send a message, and listen to the messages of the
 * expected peer only. {@link windowEndpoint} wraps a window or iframe; {@link portEndpoint} a `MessagePort` (tests,
 * workers, a Node `MessageChannel`).
 */
export interface BridgeEndpoint {
  /** Posts one message (a JSON-RPC object, sent as a structured clone). */
  post(message: object): void;
  /** Delivers each message from the peer to `deliver`; returns the function that stops listening. */
  listen(deliver: (data: unknown) => void): () => void;
}

/** What a message event carries. */
export interface MessageEventLike {
  readonly data: unknown;
  readonly source?: unknown;
}

/** Something that dispatches `message` events (a window, a `MessagePort`). */
export interface MessageEventSourceLike {
  /** Adds a `message` listener. */
  addEventListener(type: "message", listener: (event: MessageEventLike) => void): void;
  /** Removes a `message` listener. */
  removeEventListener(type: "message", listener: (event: MessageEventLike) => void): void;
}

/** A window to post to: `iframe.contentWindow` on the host, `window.parent` in the view. */
export interface WindowLike {
  /** Posts a message to the window. */
  postMessage(message: unknown, targetOrigin: string): void;
}

/** Options of {@link windowEndpoint}. */
export interface WindowEndpointOptions {
  /** The window messages are posted to. */
  target: WindowLike;
  /** The window whose `message` events are listened to: the host's or the view's own window. */
  events: MessageEventSourceLike;
  /** Only events whose `source` is this object are delivered (default: `target`); others are ignored. */
  source?: unknown;
  /** The `targetOrigin` of `postMessage` (default `"*"`: a sandboxed view has an opaque origin). */
  targetOrigin?: string;
}

/**
 * An endpoint over windows. Messages whose `event.source` is not the expected peer are ignored, so another frame
 * cannot speak for the view (or the host).
 *
 * @example
 * // Host page:
 * const endpoint = windowEndpoint({ target: iframe.contentWindow!, events: window });
 * // Inside the view:
 * const endpoint = windowEndpoint({ target: window.parent, events: window });
 */
export function windowEndpoint(options: WindowEndpointOptions): BridgeEndpoint {
  const { target, events } = options;
  const source = "source" in options ? options.source : target;
  const origin = options.targetOrigin ?? "*";
  return {
    post(message) {
      target.postMessage(message, origin);
    },
    listen(deliver) {
      const listener = (event: MessageEventLike) => {
        if (event.source === source) deliver(event.data);
      };
      events.addEventListener("message", listener);
      return () => events.removeEventListener("message", listener);
    },
  };
}

/** A `MessagePort` (browser, worker or `node:worker_threads`). */
export interface MessagePortLike extends MessageEventSourceLike {
  /** Posts a message to the other port. */
  postMessage(message: unknown): void;
  /** Starts delivery (a port listened to with `addEventListener` needs it). */
  start?(): void;
}

/**
 * An endpoint over a `MessagePort`: each port of a `MessageChannel` is one end, so two bridge ends can be linked in
 * one process.
 *
 * @example
 * const { port1, port2 } = new MessageChannel();
 * const host = new AppHost({ endpoint: portEndpoint(port1), hostInfo });
 * const view = new AppView({ endpoint: portEndpoint(port2), appInfo });
 */
export function portEndpoint(port: MessagePortLike): BridgeEndpoint {
  return {
    post(message) {
      port.postMessage(message);
    },
    listen(deliver) {
      const listener = (event: MessageEventLike) => deliver(event.data);
      port.addEventListener("message", listener);
      port.start?.();
      return () => port.removeEventListener("message", listener);
    },
  };
}
