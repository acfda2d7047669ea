import { McpkitError } from "../../jsonrpc/errors.js";
import { isObject } from "../../jsonrpc/message.js";
import type { StandardSchemaV1, StandardSchemaWithJson } from "../../protocol/standard-schema.js";
import type { PromptArgument } from "../../protocol/types/prompts.js";
import type { JsonSchema } from "../../protocol/types/tools.js";
import {
  issuesOfThrow,
  type JsonSchemaValidatorFactory,
  toPointer,
  type ValidationIssue,
  type ValueValidator,
} from "../../protocol/validation.js";
import { loadJsonSchemaValidator } from "../../validation/load.js";

/** The outcome of checking one value: the value to use (a Standard Schema's output), or every issue. */
export type CheckResult = { ok: true; value: unknown } | { ok: false; issues: readonly ValidationIssue[] };

/** Checks one value; synchronous when the validator is. */
export type Check = (value: unknown) => CheckResult | Promise<CheckResult>;

/** Whether `schema` is a Standard Schema (a raw JSON Schema has no `~standard` member). */
export function isStandardSchema(schema: unknown): schema is StandardSchemaWithJson {
  return (
    (typeof schema === "object" || typeof schema === "function") && schema !== null && "~standard" in schema
  );
}

/**
 * The wire JSON Schema 2020-12 of a schema: a raw one as it is, a Standard Schema through its
 * `~standard.jsonSchema` converter (`input` for what a client sends, `output` for what the server returns).
 */
export function wireSchema(schema: unknown, io: "input" | "output", what: string): JsonSchema {
  if (!isStandardSchema(schema)) {
    if (!isObject(schema)) throw invalid(`${what} must be a JSON Schema object or a Standard Schema`);
    return schema;
  }
  const props = schema["~standard"];
  if (!isObject(props) || typeof props.validate !== "function") {
    throw invalid(`${what} is a Standard Schema without ~standard.validate`);
  }
  const converter = props.jsonSchema;
  if (!isObject(converter) || typeof converter[io] !== "function") {
    throw invalid(
      `${what} (${String(props.vendor)}) does not implement Standard JSON Schema (~standard.jsonSchema): use a JSON Schema or a library version that does`,
    );
  }
  let converted: unknown;
  try {
    converted = converter[io]({ target: "draft-2020-12" });
  } catch (error) {
    throw invalid(`${what} cannot be converted to JSON Schema 2020-12: ${String(error)}`);
  }
  if (!isObject(converted)) throw invalid(`${what} converted to a non-object JSON Schema`);
  return converted;
}

/** A check that runs a Standard Schema's own validator and passes on its output value. */
export function standardCheck(schema: StandardSchemaWithJson): Check {
  const validate = schema["~standard"].validate;
  return (value) => {
    const result = validate(value);
    // A library may answer with any thenable; only a settled result is read synchronously.
    return "then" in result && typeof result.then === "function"
      ? Promise.resolve(result).then(fromStandard)
      : fromStandard(result as StandardSchemaV1.Result<unknown>);
  };
}

function fromStandard(result: StandardSchemaV1.Result<unknown>): CheckResult {
  if (result.issues === undefined) return { ok: true, value: result.value };
  const issues = [...result.issues].map((issue) => ({
    path: toPointer(
      (issue.path ?? []).map((segment) =>
        typeof segment === "object" && segment !== null ? segment.key : (segment as PropertyKey),
      ),
    ),
    message: issue.message,
  }));
  // A library that failed without saying why still fails.
  return { ok: false, issues: issues.length > 0 ? issues : [{ path: "", message: "invalid" }] };
}

/**
 * A check of a raw JSON Schema: compiled on first use by `factory`, or by the default validator, which is then
 * loaded (a dynamic import) the first time.
 */
export function rawCheck(schema: JsonSchema, factory: JsonSchemaValidatorFactory | undefined): Check {
  let compiled: ValueValidator | undefined = factory === undefined ? undefined : factory(schema);
  const run = (validator: ValueValidator, value: unknown): CheckResult => {
    const issues = validator(value);
    return issues.length === 0 ? { ok: true, value } : { ok: false, issues };
  };
  return (value) => {
    if (compiled !== undefined) return run(compiled, value);
    return loadJsonSchemaValidator().then((load) => {
      compiled ??= load(schema);
      return run(compiled, value);
    });
  };
}

/**
 * A check for `schema`, whichever kind it is. A validator that throws on a value nested too deep for it (a
 * recursive schema overflows the stack) makes the value invalid instead: one issue at the root says so.
 */
export function checkFor(schema: unknown, factory: JsonSchemaValidatorFactory | undefined): Check {
  return guarded(isStandardSchema(schema) ? standardCheck(schema) : rawCheck(schema as JsonSchema, factory));
}

function guarded(check: Check): Check {
  const failed = (value: unknown, error: unknown): CheckResult => ({
    ok: false,
    issues: issuesOfThrow(value, error),
  });
  return (value) => {
    let pending: CheckResult | Promise<CheckResult>;
    try {
      pending = check(value);
    } catch (error) {
      return failed(value, error);
    }
    return pending instanceof Promise ? pending.catch((error: unknown) => failed(value, error)) : pending;
  };
}

/** The prompt arguments a Standard Schema of an object declares: its properties, `required`, descriptions. */
export function promptArguments(schema: JsonSchema, what: string): PromptArgument[] {
  if (schema.type !== "object" || (schema.properties !== undefined && !isObject(schema.properties))) {
    throw invalid(`${what} must describe an object`);
  }
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  return Object.entries((schema.properties ?? {}) as { [name: string]: unknown }).map(([name, property]) => {
    const argument: PromptArgument = { name, required: required.has(name) };
    if (isObject(property) && typeof property.description === "string")
      argument.description = property.description;
    if (isObject(property) && typeof property.title === "string") argument.title = property.title;
    return argument;
  });
}

function invalid(message: string): McpkitError {
  return new McpkitError("INVALID_CONFIG", message);
}
