import { fromBase64url, toBase64url } from "../jsonrpc/base64.js";
import { invalidParams } from "../server/index.js";
import { decodeUtf8, utf8 } from "./bytes.js";

const PREFIX = "after:";

/** An opaque cursor that resumes after `key` (base64url of `after:<key>`). */
function encodeCursor(key: string): string {
  return toBase64url(utf8(PREFIX + key));
}

// Unused low bits that are not zero are tolerated: a cursor of that form has always been taken, and still is.
function decodeCursor(cursor: string): string | undefined {
  const bytes = fromBase64url(cursor, { canonical: false });
  const text = bytes === undefined ? undefined : decodeUtf8(bytes);
  return text?.startsWith(PREFIX) ? text.slice(PREFIX.length) : undefined;
}

/**
 * One page of `items` (sorted by `key`), resuming after the key the cursor names, so a page never splits an item
 * and an item never appears on two pages even if the list changed in between. A cursor that is not one of these
 * is -32602.
 */
export function page<T>(
  items: readonly T[],
  key: (item: T) => string,
  cursor: unknown,
  size: number,
): { items: T[]; nextCursor?: string } {
  let start = 0;
  if (cursor !== undefined) {
    const after = typeof cursor === "string" ? decodeCursor(cursor) : undefined;
    if (after === undefined) throw invalidParams("cursor is not one this server issued");
    // The first item whose key sorts after the cursor's (binary search: items are sorted by key).
    let high = items.length;
    while (start < high) {
      const middle = (start + high) >>> 1;
      if (key(items[middle] as T) > after) high = middle;
      else start = middle + 1;
    }
  }
  const slice = items.slice(start, start + size);
  const last = slice.at(-1);
  return start + size < items.length && last !== undefined
    ? { items: slice, nextCursor: encodeCursor(key(last)) }
    : { items: slice };
}
