import { isObject } from "../jsonrpc/message.js";
import type { ElicitParams, ElicitResult, ElicitValue } from "../protocol/types/input.js";

/**
 * Fills the fields of an accepted form that the user left out with the `default` of their schema property
 * (SEP-1034). Declined and cancelled answers, URL mode, fields the user did fill, and defaults that are not
 * form values (string, number, boolean, array of strings) are left as they are. Returns `result` itself when
 * nothing was added.
 *
 * @example
 * const name = { type: "string", default: "Ada" } as const;
 * const params = { message: "Who?", requestedSchema: { type: "object", properties: { name } } } as const;
 * withElicitationDefaults(params, { action: "accept", content: {} }); // { action: "accept", content: { name: "Ada" } }
 */
export function withElicitationDefaults(params: ElicitParams, result: ElicitResult): ElicitResult {
  if (result.action !== "accept" || params.mode === "url") return result;
  const properties = isObject(params.requestedSchema) ? params.requestedSchema.properties : undefined;
  if (!isObject(properties)) return result;
  const given = isObject(result.content) ? result.content : {};
  let content: { [name: string]: ElicitValue } | undefined;
  for (const [name, schema] of Object.entries(properties)) {
    if (Object.hasOwn(given, name) || !isObject(schema) || !isElicitValue(schema.default)) continue;
    content ??= { ...given };
    content[name] = schema.default;
  }
  return content === undefined ? result : { ...result, content };
}

function isElicitValue(value: unknown): value is ElicitValue {
  if (typeof value === "string" || typeof value === "boolean") return true;
  if (typeof value === "number") return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}
