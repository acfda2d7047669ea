import { nestsDeeperThan } from "../jsonrpc/json-depth.js";
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

/** Levels past which a value that made a validator throw is reported as too deep rather than rethrown. */
export const VALIDATION_DEPTH_HINT = 64;

/**
 * What to make of a validator that threw on `value`: a recursive schema walks a deeply nested value until the
 * stack overflows (`JSON.parse` reads half a million levels from a 1 MB message), so a value nested more than
 * {@link VALIDATION_DEPTH_HINT} levels is invalid, with one issue at the root saying so. Any other throw is the
 * validator's own: `error` is rethrown.
 */
export function issuesOfThrow(value: unknown, error: unknown): readonly ValidationIssue[] {
  if (!nestsDeeperThan(value, VALIDATION_DEPTH_HINT)) throw error;
  return TOO_DEEP_ISSUES;
}

const TOO_DEEP_ISSUES: readonly ValidationIssue[] = Object.freeze([
  Object.freeze({
    path: "",
    message: `nests too deep to validate (more than ${VALIDATION_DEPTH_HINT} levels, and the validator gave up)`,
  }),
]);
