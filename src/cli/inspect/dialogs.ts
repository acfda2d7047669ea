import { randomUUID } from "node:crypto";
import { McpkitError } from "../../jsonrpc/errors.js";
import type { EventHub } from "./events.js";

/** Most server requests waiting for the user at once; one more is refused at once (`CAPACITY`). */
export const MAX_DIALOGS = 32;

/** The kinds of server-initiated requests the page answers. */
export type DialogKind = "elicitation" | "sampling";

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/**
 * Server-initiated requests shown to the user as dialogs: each is published to the page (`dialog`), waits for
 * `answer()` (or the request's own end: its signal, the client's callback deadline), and is withdrawn
 * (`dialog-closed`) either way.
 *
 * @example
 * onElicitation: (params, { signal }) => dialogs.ask("elicitation", params, signal),
 */
export class Dialogs {
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly events: EventHub) {}

  /** Shows a dialog and resolves with what the user answered. */
  ask(kind: DialogKind, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (this.pending.size >= MAX_DIALOGS) {
      return Promise.reject(new McpkitError("CAPACITY", `more than ${MAX_DIALOGS} dialogs are open`));
    }
    const id = randomUUID();
    return new Promise<unknown>((resolve, reject) => {
      const done = () => {
        this.pending.delete(id);
        signal.removeEventListener("abort", aborted);
        this.events.unpin(`dialog:${id}`);
        this.events.publish("dialog-closed", { id });
      };
      const aborted = () => {
        done();
        reject(signal.reason instanceof Error ? signal.reason : new Error("the request ended"));
      };
      this.pending.set(id, {
        resolve: (result) => {
          done();
          resolve(result);
        },
        reject: (error) => {
          done();
          reject(error);
        },
      });
      if (signal.aborted) return aborted();
      signal.addEventListener("abort", aborted, { once: true });
      this.events.publish("dialog", { id, kind, params }, `dialog:${id}`);
    });
  }

  /** The user's answer to dialog `id` (or their refusal, `error`); false when it is no longer open. */
  answer(id: string, result: unknown, error?: string): boolean {
    const pending = this.pending.get(id);
    if (pending === undefined) return false;
    if (error !== undefined) pending.reject(new Error(error));
    else pending.resolve(result);
    return true;
  }

  /** Withdraws every open dialog (the connection is closing). */
  closeAll(): void {
    for (const pending of [...this.pending.values()]) pending.reject(new Error("the inspector closed"));
  }
}
