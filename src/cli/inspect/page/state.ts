import { api } from "./api.js";
import type { TargetArgv } from "./cli-command.js";

type Params = { [key: string]: unknown };

/** One thing the user did, kept for the history (exported and re-imported as JSON). */
export interface HistoryEntry {
  time: string;
  op: string;
  params: Params;
  ok: boolean;
  summary: string;
  imported?: boolean;
}

/** Most history entries kept; the oldest go first. */
export const MAX_HISTORY = 1_000;

/** What the whole page shares. */
export const state = {
  target: { kind: "stdio", argv: [] } as TargetArgv,
  info: undefined as Params | undefined,
  connected: false,
  history: [] as HistoryEntry[],
  onHistory: [] as (() => void)[],
  /** Brings a tab to the front (set by main). */
  showTab: (_name: string) => {},
};

/** The negotiated era, or undefined before a connection. */
export function era(): string | undefined {
  const e = state.info?.era;
  return typeof e === "string" ? e : undefined;
}

export function addHistory(entry: HistoryEntry): void {
  state.history.push(entry);
  if (state.history.length > MAX_HISTORY) state.history.shift();
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
