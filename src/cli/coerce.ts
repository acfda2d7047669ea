import { UsageError } from "./exit-codes.js";

type Schema = { readonly [key: string]: unknown };

/** Splits `key=value` words into pairs, refusing words without `=`, empty keys and repeated keys. */
export function splitPairs(words: readonly string[], what: string): [string, string][] {
  const seen = new Set<string>();
  return words.map((word) => {
    const equals = word.indexOf("=");
    if (equals <= 0) throw new UsageError(`${what}: "${word}" is not key=value`);
    const key = word.slice(0, equals);
    if (seen.has(key)) throw new UsageError(`${what}: "${key}" is given twice`);
    seen.add(key);
    return [key, word.slice(equals + 1)];
  });
}

/**
 * Builds tool arguments from `key=value` words, converting each value to the type its property declares in
 * the tool's `inputSchema` (number, integer, boolean, null, string; JSON for object and array). Unknown keys,
 * values that do not convert, values outside an `enum` and missing required keys are {@link UsageError}s.
 *
 * @example
 * toolArguments("add", ["a=1", "b=2.5"], { type: "object", properties: { a: { type: "number" }, b: { type: "number" } } });
 * // { a: 1, b: 2.5 }
 */
export function toolArguments(tool: string, words: readonly string[], inputSchema: Schema | undefined) {
  const what = `tool "${tool}"`;
  const properties = asSchema(inputSchema?.properties) ?? {};
  const open = inputSchema?.additionalProperties !== undefined && inputSchema.additionalProperties !== false;
  const result: { [key: string]: unknown } = {};
  for (const [key, text] of splitPairs(words, what)) {
    const property = Object.hasOwn(properties, key) ? asSchema(properties[key]) : undefined;
    if (property === undefined && !Object.hasOwn(properties, key)) {
      if (!open) throw new UsageError(`${what} has no argument "${key}" (arguments: ${namesOf(properties)})`);
      result[key] = parseLoose(text);
      continue;
    }
    result[key] = coerce(`${what}: ${key}`, text, property ?? {});
  }
  const required = Array.isArray(inputSchema?.required) ? (inputSchema.required as unknown[]) : [];
  const missing = required.filter((key): key is string => typeof key === "string" && !(key in result));
  if (missing.length > 0) throw new UsageError(`${what} needs ${missing.map((k) => `${k}=...`).join(" ")}`);
  return result;
}

/** Converts one value to the JSON type `schema` declares. */
export function coerce(label: string, text: string, schema: Schema): unknown {
  const value = convert(label, text, schema);
  const choices = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  if (choices !== undefined && !choices.some((choice) => JSON.stringify(choice) === JSON.stringify(value))) {
    throw new UsageError(
      `${label}: "${text}" is not one of ${choices.map((c) => JSON.stringify(c)).join(", ")}`,
    );
  }
  return value;
}

function convert(label: string, text: string, schema: Schema): unknown {
  if (text === "null" && Array.isArray(schema.type) && schema.type.includes("null")) return null;
  switch (typeOf(schema)) {
    case "string":
      return text;
    case "number": {
      const value = Number(text);
      if (text.trim() === "" || !Number.isFinite(value))
        throw new UsageError(`${label}: "${text}" is not a number`);
      return value;
    }
    case "integer": {
      const value = Number(text);
      if (text.trim() === "" || !Number.isSafeInteger(value)) {
        throw new UsageError(`${label}: "${text}" is not an integer`);
      }
      return value;
    }
    case "boolean":
      if (text === "true") return true;
      if (text === "false") return false;
      throw new UsageError(`${label}: "${text}" is not true or false`);
    case "null":
      if (text === "null") return null;
      throw new UsageError(`${label}: "${text}" is not null`);
    case "object":
    case "array": {
      const kind = typeOf(schema);
      const value = parseJson(label, text);
      const isArray = Array.isArray(value);
      if (typeof value !== "object" || value === null || isArray !== (kind === "array")) {
        throw new UsageError(`${label}: "${text}" is not a JSON ${kind}`);
      }
      return value;
    }
    default:
      // No single declared type (anyOf, enum of mixed values, no schema): JSON if it parses, else the string.
      return parseLoose(text);
  }
}

/** The one JSON type a property declares: `type`, a `type` list with `null` beside one type, or an enum's. */
function typeOf(schema: Schema): string | undefined {
  const type = schema.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type)) {
    const types = type.filter((t) => t !== "null");
    return types.length === 1 && typeof types[0] === "string" ? types[0] : undefined;
  }
  if (Array.isArray(schema.enum) && schema.enum.every((choice) => typeof choice === "string"))
    return "string";
  if (typeof schema.const === "string") return "string";
  return undefined;
}

function parseJson(label: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new UsageError(`${label}: "${text}" is not JSON`);
  }
}

function parseLoose(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function asSchema(value: unknown): Schema | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Schema) : undefined;
}

function namesOf(properties: Schema): string {
  const names = Object.keys(properties);
  return names.length === 0 ? "none" : names.join(", ");
}

/**
 * Builds prompt arguments (strings) from `key=value` words, checked against the prompt's declared arguments.
 *
 * @example
 * promptArguments("greet", ["name=Ada"], [{ name: "name", required: true }]); // { name: "Ada" }
 */
export function promptArguments(
  prompt: string,
  words: readonly string[],
  declared: readonly { name: string; required?: boolean }[] | undefined,
): { [key: string]: string } {
  const what = `prompt "${prompt}"`;
  const names = new Set((declared ?? []).map((argument) => argument.name));
  const result: { [key: string]: string } = {};
  for (const [key, value] of splitPairs(words, what)) {
    if (!names.has(key)) {
      throw new UsageError(
        `${what} has no argument "${key}" (arguments: ${[...names].join(", ") || "none"})`,
      );
    }
    result[key] = value;
  }
  const missing = (declared ?? []).filter(
    (argument) => argument.required === true && !(argument.name in result),
  );
  if (missing.length > 0)
    throw new UsageError(`${what} needs ${missing.map((a) => `${a.name}=...`).join(" ")}`);
  return result;
}
