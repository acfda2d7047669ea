import { McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import type { ResultObject } from "../jsonrpc/pending.js";

export const DEFAULT_MAX_PAGES = 100;
export const DEFAULT_MAX_ITEMS = 100_000;

/** Bounds of one walk. */
export interface PageLimits {
  maxPages: number;
  maxItems: number;
}

/**
 * Follows `nextCursor` from the first page until a page has none, collecting `result[member]`. Throws
 * `McpkitError` `LIMIT_EXCEEDED` when a cursor repeats (`details.reason` `"repeated_cursor"`), or when more
 * pages or items would be needed than the limits allow (`details.limit` names it).
 */
export async function collectPages<T>(
  member: string,
  limits: PageLimits,
  fetchPage: (cursor: string | undefined) => Promise<ResultObject>,
): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let pages = 0; ; ) {
    const page = await fetchPage(cursor);
    pages++;
    const found = page[member] as T[];
    if (items.length + found.length > limits.maxItems) {
      const facts = { option: "maxItems", limit: limits.maxItems, size: items.length + found.length };
      throw limitError("LIMIT_EXCEEDED", `listing ${member}`, facts, { unit: "items" });
    }
    for (const item of found) items.push(item);
    const next = page.nextCursor;
    if (typeof next !== "string") return items;
    if (seen.has(next)) {
      throw new McpkitError("LIMIT_EXCEEDED", "the server repeated a pagination cursor", {
        details: { reason: "repeated_cursor", cursor: next },
      });
    }
    if (pages >= limits.maxPages) {
      const facts = { option: "maxPages", limit: limits.maxPages, size: pages + 1 };
      throw limitError("LIMIT_EXCEEDED", `listing ${member}`, facts, { unit: "pages" });
    }
    seen.add(next);
    cursor = next;
  }
}
