import { MessageChannel, type MessagePort } from "node:worker_threads";
import { type BridgeEndpoint, portEndpoint } from "mcpkit/apps";

/** Two linked bridge endpoints in one process. */
export function linkedEndpoints(): { a: BridgeEndpoint; b: BridgeEndpoint; close(): void } {
  const { port1, port2 } = new MessageChannel();
  return {
    a: portEndpoint(port1 as never),
    b: portEndpoint(port2 as never),
    close() {
      port1.close();
      port2.close();
    },
  };
}

/** A raw end of a channel: posts frames as given and collects what arrives, in order. */
export class RawEnd {
  readonly received: { [key: string]: unknown }[] = [];
  private waiters: (() => void)[] = [];
  readonly port: MessagePort;

  constructor(port: MessagePort) {
    this.port = port;
    port.on("message", (data: { [key: string]: unknown }) => {
      this.received.push(data);
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  post(frame: unknown): void {
    this.port.postMessage(frame);
  }

  /** The first received frame matching `match` (waits for it; the test's own timeout bounds the wait). */
  async next(match: (frame: { [key: string]: unknown }) => boolean): Promise<{ [key: string]: unknown }> {
    for (;;) {
      const index = this.received.findIndex(match);
      if (index >= 0) return this.received.splice(index, 1)[0] as { [key: string]: unknown };
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** The answer to request `id`. */
  answer(id: unknown): Promise<{ [key: string]: unknown }> {
    return this.next((f) => f.id === id && f.method === undefined);
  }
}

/** A raw end linked to a bridge endpoint. */
export function rawPair(): { raw: RawEnd; endpoint: BridgeEndpoint; close(): void } {
  const { port1, port2 } = new MessageChannel();
  return {
    raw: new RawEnd(port1),
    endpoint: portEndpoint(port2 as never),
    close() {
      port1.close();
      port2.close();
    },
  };
}
