import type { JsonSchema } from "./types/tools.js";

/** One problem a validator found: where (a JSON Pointer, `""` for the value itself) and what. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** Checks one value: no issues (an empty array) means valid. */
export type ValueValidator = (value: unknown) => readonly ValidationIssue[];

/**
 * Compiles a raw JSON Schema (2020-12) into a {@link ValueValidator}, once per schema. mcpkit's default is
 * `jsonSchemaValidator` of `mcpkit/validation` (loaded on first use); give your own to use another library.
 *
 * @example
 * const ajvValidator: JsonSchemaValidatorFactory = (schema) => {
 *   const check = new Ajv2020({ allErrors: true }).compile(schema);
 *   return (value) => (check(value) ? [] : (check.errors ?? []).map((e) => ({ path: e.instancePath, message: e.message ?? "invalid" })));
 * };
 */
export type JsonSchemaValidatorFactory = (schema: JsonSchema) => ValueValidator;

/** Renders issues as one line each: `/a: expected number` (the value itself is `(root)`). */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `${issue.path === "" ? "(root)" : issue.path}: ${issue.message}`).join("\n");
}

/** A JSON Pointer from path segments (RFC 6901 escaping). */
export function toPointer(segments: readonly PropertyKey[]): string {
  let pointer = "";
  for (const segment of segments) {
    pointer += `/${String(segment).replaceAll("~", "~0").replaceAll("/", "~1")}`;
  }
  return pointer;
}
