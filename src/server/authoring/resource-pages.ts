import { isObject } from "../../jsonrpc/message.js";
import type { Resource } from "../../protocol/types/resources.js";
import type { RequestContext } from "../core/context.js";
import { invalidParams } from "../core/errors.js";
import type { ResourceEntry, TemplateEntry } from "./registrations.js";
import { firstAtOrAfter, type Slot, type Table } from "./registry.js";

/**
 * One page of `resources/list`: the fixed resources first, then the resources each template's `list` callback
 * gives, template after template, in registration order. Cursors say where the next page starts: `o:N` (fixed
 * resources from sequence number N), `t:S:K` (the template numbered S, from its K-th listed resource; a template
 * removed meanwhile moves on to the next one). A list callback runs again for each page that reaches it, and
 * may return at most `limit` resources: more is a bug of the server (`-32603`, the details logged).
 */
export async function resourcesPage(
  resources: Table<ResourceEntry>,
  templates: Table<TemplateEntry>,
  cursor: string | undefined,
  size: number,
  limit: number,
  context: RequestContext,
): Promise<{ resources: Resource[]; nextCursor?: string }> {
  const listers = templates.list().filter((slot) => slot.entry.list !== undefined);
  const at = parseCursor(cursor, resources, templates);
  const out: Resource[] = [];
  if (at.phase === "fixed") {
    const { items, nextCursor } = resources.page(`o:${at.seq}`, size);
    out.push(...items.map((slot) => slot.entry.definition));
    if (nextCursor !== undefined) return { resources: out, nextCursor };
    if (out.length === size)
      return listers.length > 0 ? { resources: out, nextCursor: "t:0:0" } : { resources: out };
  }
  let index = firstAtOrAfter(listers, at.phase === "templates" ? at.seq : 0);
  for (; index < listers.length; index++) {
    const slot = listers[index] as Slot<TemplateEntry>;
    const items = await listed(slot.entry, limit, context);
    let k = at.phase === "templates" && at.seq === slot.seq ? at.item : 0;
    for (; k < items.length && out.length < size; k++) out.push(items[k] as Resource);
    if (out.length === size) {
      if (k < items.length) return { resources: out, nextCursor: `t:${slot.seq}:${k}` };
      const following = listers[index + 1];
      return following === undefined
        ? { resources: out }
        : { resources: out, nextCursor: `t:${following.seq}:0` };
    }
  }
  return { resources: out };
}

type Position = { phase: "fixed"; seq: number } | { phase: "templates"; seq: number; item: number };

function parseCursor(
  cursor: string | undefined,
  resources: Table<ResourceEntry>,
  templates: Table<TemplateEntry>,
): Position {
  if (cursor === undefined || cursor.startsWith("o:"))
    return { phase: "fixed", seq: resources.cursorSeq(cursor) };
  const match = /^t:(\d+):(\d+)$/.exec(cursor);
  const seq = Number(match?.[1]);
  const item = Number(match?.[2]);
  if (!Number.isSafeInteger(seq) || !Number.isSafeInteger(item) || !templates.knows(seq)) {
    throw invalidParams("invalid cursor");
  }
  return { phase: "templates", seq, item };
}

/** The resources a template lists, checked: an object with a `resources` array of at most `limit` resources. */
async function listed(
  entry: TemplateEntry,
  limit: number,
  context: RequestContext,
): Promise<readonly Resource[]> {
  const answer = await (entry.list as NonNullable<TemplateEntry["list"]>)(context);
  const what = `the list callback of resource template "${entry.definition.uriTemplate}"`;
  if (!isObject(answer) || !Array.isArray(answer.resources)) {
    throw new Error(`${what} must return { resources: [...] }`);
  }
  if (answer.resources.length > limit) {
    throw new Error(`${what} returned ${answer.resources.length} resources, more than the ${limit} allowed`);
  }
  for (const resource of answer.resources) {
    if (!isObject(resource) || typeof resource.uri !== "string" || typeof resource.name !== "string") {
      throw new Error(`${what} returned a resource without a string uri and name`);
    }
  }
  return answer.resources as readonly Resource[];
}
