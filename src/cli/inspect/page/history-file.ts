// Reading an exported history back, with its bounds: a file too big, not JSON or not a history is refused with a
// message that says which; the entries beyond what the history keeps are dropped (the oldest) and counted. No DOM
// here: test/inspect/bounded.test.ts drives it directly.
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

/** Largest history file imported, in bytes. */
export const MAX_IMPORT_BYTES = 16_000_000;

/** What an import read: the entries to add (oldest first), and what it left out. */
export interface ImportedHistory {
  entries: HistoryEntry[];
  /** Entries left out because the history keeps only the newest `keep`. */
  dropped: number;
  /** Entries that were not history entries (no `op` string or no `params` object). */
  skipped: number;
}

/** Refuses a file over {@link MAX_IMPORT_BYTES} before it is read. */
export function checkImportSize(bytes: number): void {
  if (bytes > MAX_IMPORT_BYTES) {
    throw new Error(
      `the file has ${bytes.toLocaleString("en")} bytes: a history file has at most ${MAX_IMPORT_BYTES.toLocaleString("en")}`,
    );
  }
}

/** Parses an exported history, keeping the newest `keep` of its entries, each marked imported. */
export function parseHistoryFile(text: string, keep: number): ImportedHistory {
  checkImportSize(text.length);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new Error(`not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  const { format, entries } = (typeof doc === "object" && doc !== null ? doc : {}) as Params;
  if (format !== "mcpkit-inspect-history") {
    throw new Error('not an mcpkit inspect history (its "format" is not "mcpkit-inspect-history")');
  }
  if (!Array.isArray(entries)) throw new Error('not an mcpkit inspect history (no "entries" array)');
  const valid: HistoryEntry[] = [];
  let skipped = 0;
  for (const raw of entries as unknown[]) {
    const e = (typeof raw === "object" && raw !== null ? raw : {}) as Params;
    if (
      typeof e.op !== "string" ||
      typeof e.params !== "object" ||
      e.params === null ||
      Array.isArray(e.params)
    ) {
      skipped++;
      continue;
    }
    valid.push({
      time: String(e.time ?? "").slice(0, 40),
      op: e.op.slice(0, 200),
      params: e.params as Params,
      ok: e.ok === true,
      summary: String(e.summary ?? "").slice(0, 200),
      imported: true,
    });
  }
  const dropped = Math.max(0, valid.length - keep);
  return { entries: valid.slice(dropped), dropped, skipped };
}
