import { invalidParams } from "./errors.js";

/**
 * Cuts a list into pages for the builder. The cursor is the decimal offset of the next page, prefixed so a
 * stale or foreign cursor is refused with `-32602` rather than silently restarting.
 */
export function page<T>(
  items: readonly T[],
  cursor: string | undefined,
  pageSize: number,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const match = /^o:(\d+)$/.exec(cursor);
    start = match ? Number(match[1]) : Number.NaN;
    if (!Number.isSafeInteger(start) || start < 0 || start > items.length)
      throw invalidParams("invalid cursor");
  }
  const end = Math.min(items.length, start + pageSize);
  const out: { items: T[]; nextCursor?: string } = { items: items.slice(start, end) };
  if (end < items.length) out.nextCursor = `o:${end}`;
  return out;
}
