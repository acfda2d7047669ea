/**
 * A shortcut in front of the raw JSON Schema validator, for the schema most tools have: an object of named
 * scalar properties. `flatObjectCheck(schema)` returns a predicate that is true only for values the schema
 * certainly accepts, or `undefined` when the schema uses anything else. A false answer proves nothing: the full
 * validator then decides, and reports the errors. Why: `@cfworker/json-schema` builds a JSON Pointer for every
 * property it visits, valid or not, and on the bench's `add` tool that was 16% of an in-process call
 * (docs/performance.md, "Validation").
 */

type Scalar = "string" | "number" | "integer" | "boolean" | "null";

/** Keywords that only annotate: they never make a value invalid. */
const ANNOTATIONS: ReadonlySet<string> = new Set([
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

const OBJECT_KEYWORDS: ReadonlySet<string> = new Set([
  ...ANNOTATIONS,
  "type",
  "properties",
  "required",
  "additionalProperties",
]);

const SCALARS: ReadonlySet<string> = new Set(["string", "number", "integer", "boolean", "null"]);

const hasOwn = (value: object, key: string) => Object.hasOwn(value, key);

function isPlainObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The scalar type a property schema asks for, `"any"` for none, or undefined when it asks for more. */
function propertyType(schema: unknown): Scalar | "any" | undefined {
  if (schema === true) return "any";
  if (!isPlainObject(schema)) return undefined;
  for (const key of Object.keys(schema)) if (key !== "type" && !ANNOTATIONS.has(key)) return undefined;
  if (!hasOwn(schema, "type")) return "any";
  const type = schema.type;
  return typeof type === "string" && SCALARS.has(type) ? (type as Scalar) : undefined;
}

function matches(type: Scalar | "any", value: unknown): boolean {
  switch (type) {
    case "any":
      return true;
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isSafeInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
  }
}

/**
 * A predicate true only for values `schema` certainly accepts, when `schema` is a flat object schema (`type:
 * "object"`, `properties` of scalar `type`s or none, `required`, `additionalProperties` true or false, and
 * annotations); `undefined` for any other schema.
 *
 * @example
 * const quick = flatObjectCheck({ type: "object", properties: { a: { type: "number" } }, required: ["a"] });
 * quick?.({ a: 1 }); // true
 * quick?.({ a: "1" }); // false: ask the full validator
 */
export function flatObjectCheck(schema: unknown): ((value: unknown) => boolean) | undefined {
  if (!isPlainObject(schema) || schema.type !== "object") return undefined;
  for (const key of Object.keys(schema)) if (!OBJECT_KEYWORDS.has(key)) return undefined;
  const additional = hasOwn(schema, "additionalProperties") ? schema.additionalProperties : true;
  if (typeof additional !== "boolean") return undefined;
  const types = new Map<string, Scalar | "any">();
  if (hasOwn(schema, "properties")) {
    const properties = schema.properties;
    if (!isPlainObject(properties)) return undefined;
    for (const name of Object.keys(properties)) {
      const type = propertyType(properties[name]);
      if (type === undefined) return undefined;
      types.set(name, type);
    }
  }
  let required: readonly string[] = [];
  if (hasOwn(schema, "required")) {
    const list = schema.required;
    if (!Array.isArray(list) || !list.every((name) => typeof name === "string")) return undefined;
    required = list as string[];
  }
  return (value) => {
    if (!isPlainObject(value) || Object.getPrototypeOf(value) !== Object.prototype) return false;
    for (const name of required) if (!hasOwn(value, name)) return false;
    for (const name of Object.keys(value)) {
      const type = types.get(name);
      if (type === undefined) {
        if (!additional) return false;
      } else if (!matches(type, value[name])) return false;
    }
    return true;
  };
}
