import type { ServerResponse } from "node:http";

/** Most events kept for a page that (re)connects: the wire log and dialogs replay from here. */
export const BACKLOG_EVENTS = 2_000;
/** Most pages listening at once; one more is refused (429). */
export const MAX_LISTENERS = 8;
/** Longest message text shown in the wire log; a longer one is cut, and says so. */
export const WIRE_PREVIEW_CHARS = 65_536;

/** One event of the page's stream: its kind and its JSON data. */
export interface InspectorEvent {
  type: string;
  data: unknown;
}

/**
 * The inspector's event stream (Server-Sent Events): wire messages, progress, notifications, dialogs and
 * connection changes, to every page listening, with a bounded backlog replayed to a page that connects late.
 *
 * @example
 * const hub = new EventHub();
 * hub.publish("progress", { callId, progress: 1, total: 3 });
 */
export class EventHub {
  private readonly listeners = new Set<ServerResponse>();
  private readonly backlog: { id: number; frame: string }[] = [];
  /** Events that stay true until replaced or unpinned (the connection's state, open dialogs), by key. */
  private readonly pinned = new Map<string, { id: number; frame: string }>();
  private next = 0;

  /**
   * Sends an event to every page, keeping it for pages that come later. With `pin`, the event is also kept
   * under that key (replacing the one before) until {@link unpin}: a page that comes after the backlog has moved
   * on still gets it.
   */
  publish(type: string, data: unknown, pin?: string): void {
    const id = this.next++;
    const frame = `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
    this.backlog.push({ id, frame });
    if (this.backlog.length > BACKLOG_EVENTS) this.backlog.shift();
    if (pin !== undefined) this.pinned.set(pin, { id, frame });
    for (const res of this.listeners) res.write(frame);
  }

  unpin(key: string): void {
    this.pinned.delete(key);
  }

  /**
   * Streams to `res` what it has not seen (after `lastEventId`, the browser's `Last-Event-ID` when it
   * reconnects), pinned events first, then every new event; false when too many pages already listen.
   */
  attach(res: ServerResponse, lastEventId?: number): boolean {
    if (this.listeners.size >= MAX_LISTENERS) return false;
    res.writeHead(200, {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    const after = lastEventId ?? -1;
    const first = this.backlog[0]?.id ?? this.next;
    const older = [...this.pinned.values()]
      .filter((e) => e.id < first && e.id > after)
      .sort((a, b) => a.id - b.id);
    for (const { frame } of older) res.write(frame);
    for (const { id, frame } of this.backlog) if (id > after) res.write(frame);
    this.listeners.add(res);
    res.on("close", () => this.listeners.delete(res));
    return true;
  }

  /** Ends every stream (the inspector is closing). */
  close(): void {
    for (const res of this.listeners) res.end();
    this.listeners.clear();
  }
}

/** A wire message as the log shows it, with its size in characters: whole, or cut to {@link WIRE_PREVIEW_CHARS}. */
export function wireEntry(direction: "in" | "out", message: unknown): { [key: string]: unknown } {
  const text = JSON.stringify(message) ?? "null";
  const m = (typeof message === "object" && message !== null ? message : {}) as { [key: string]: unknown };
  const base = {
    direction,
    time: new Date().toISOString(),
    method: typeof m.method === "string" ? m.method : undefined,
    id: typeof m.id === "string" || typeof m.id === "number" ? m.id : undefined,
  };
  if (text.length <= WIRE_PREVIEW_CHARS) return { ...base, size: text.length, message };
  return { ...base, truncated: true, size: text.length, preview: text.slice(0, WIRE_PREVIEW_CHARS) };
}
