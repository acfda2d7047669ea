import { randomUUID } from "node:crypto";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import type { EventHub } from "./events.js";

/** Most server requests waiting for the user at once; one more is refused at once (`CAPACITY`). */
export const MAX_DIALOGS = 32;

/** The kinds of server-initiated requests the page answers. */
export type DialogKind = "elicitation" | "sampling";

/** What the client answers when the user rejects a sampling request: the spec's code for it (client/sampling). */
export const USER_REJECTED_SAMPLING = { code: -1, message: "User rejected sampling request" } as const;

interface Pending {
  kind: DialogKind;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** Options of {@link Dialogs}. */
export interface DialogOptions {
  /** The reply every sampling dialog starts from (`--sampling-reply`); else the page drafts one. */
  samplingDraft?: unknown;
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

  constructor(
    private readonly events: EventHub,
    private readonly options: DialogOptions = {},
  ) {}

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
        kind,
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
      const draft = kind === "sampling" ? this.options.samplingDraft : undefined;
      this.events.publish(
        "dialog",
        { id, kind, params, ...(draft === undefined ? {} : { draft }) },
        `dialog:${id}`,
      );
    });
  }

  /** The user's answer to dialog `id`; false when it is no longer open. */
  answer(id: string, result: unknown): boolean {
    const pending = this.pending.get(id);
    if (pending === undefined) return false;
    pending.resolve(result);
    return true;
  }

  /**
   * The user rejects dialog `id`: a sampling request is answered with the spec's error (-1, "User rejected
   * sampling request"); false when it is no longer open. (An elicitation is declined with an answer instead.)
   */
  reject(id: string): boolean {
    const pending = this.pending.get(id);
    if (pending === undefined) return false;
    const { code, message } = USER_REJECTED_SAMPLING;
    pending.reject(
      pending.kind === "sampling"
        ? new JsonRpcError(code, message)
        : new Error("the user rejected the request"),
    );
    return true;
  }

  /** Withdraws every open dialog (the connection is closing). */
  closeAll(): void {
    for (const pending of [...this.pending.values()]) pending.reject(new Error("the inspector closed"));
  }
}
