import { api } from "./api.js";
import { BoundedLog } from "./bounded.js";
import type { TargetArgv } from "./cli-command.js";
import type { HistoryEntry } from "./history-file.js";
import { MAX_HISTORY } from "./limits.js";

export type { HistoryEntry };

type Params = { [key: string]: unknown };

/** What the whole page shares. */
export const state = {
  target: { kind: "stdio", argv: [] } as TargetArgv,
  info: undefined as Params | undefined,
  connected: false,
  /** The newest {@link MAX_HISTORY} entries, oldest first; `dropped` counts the ones that went. */
  history: new BoundedLog<HistoryEntry>(MAX_HISTORY),
  onHistory: [] as (() => void)[],
  /** Brings a tab to the front (set by main). */
  showTab: (_name: string) => {},
};

/** The negotiated era, or undefined before a connection. */
export function era(): string | undefined {
  const e = state.info?.era;
  return typeof e === "string" ? e : undefined;
}

/** Adds entries (one redraw however many). */
export function addHistory(...entries: HistoryEntry[]): void {
  state.history.push(...entries);
  for (const listener of state.onHistory) listener();
}

/** Runs an operation and records it in the history. */
export async function tracked<T = unknown>(op: string, params: Params = {}): Promise<T> {
  const time = new Date().toISOString();
  try {
    const result = await api<T>(op, params);
    addHistory({ time, op, params, ok: true, summary: summarize(result) });
    return result;
  } catch (error) {
    addHistory({
      time,
      op,
      params,
      ok: false,
      summary: error instanceof Error ? error.message : String(error),
    });
    throw error;
  }
}

function summarize(result: unknown): string {
  const text = JSON.stringify(result) ?? "";
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
