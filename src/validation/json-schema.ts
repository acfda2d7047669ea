import { type OutputUnit, Validator } from "@cfworker/json-schema";
import type { JsonSchemaValidatorFactory, ValidationIssue, ValueValidator } from "../protocol/validation.js";
import { flatObjectCheck } from "./flat-object.js";

/** Keywords whose error only says that a subschema failed; the subschema's own errors say where and why. */
const SUMMARIES: ReadonlySet<string> = new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "unevaluatedItems",
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "allOf",
  "dependentSchemas",
  "if",
  "then",
  "else",
]);

/** Errors under these keywords belong to alternatives that were allowed to fail; their summary is kept. */
const ALTERNATIVES = /\/(?:anyOf|oneOf|not|contains|if|propertyNames)(?:\/|$)/;

/**
 * The default raw JSON Schema validator: `@cfworker/json-schema` (JSON Schema 2020-12, no code generation, so
 * it runs on every Web runtime, Workers included). Every failing path is reported, not only the first.
 *
 * @example
 * const check = jsonSchemaValidator({ type: "object", properties: { a: { type: "number" } }, required: ["a"] });
 * check({ a: "1" }); // [{ path: "/a", message: "expected number, got string" }]
 */
export const jsonSchemaValidator: JsonSchemaValidatorFactory = (schema) => {
  const validator = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false);
  // A flat object schema's valid values are recognised without the validator (flat-object.ts).
  const certainlyValid = flatObjectCheck(schema);
  const check: ValueValidator = (value) => {
    if (certainlyValid?.(value)) return NO_ISSUES;
    const { valid, errors } = validator.validate(value);
    return valid ? NO_ISSUES : toIssues(errors);
  };
  return check;
};

const NO_ISSUES: readonly ValidationIssue[] = Object.freeze([]);

function toIssues(errors: readonly OutputUnit[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  let previous: OutputUnit | undefined;
  for (const error of errors) {
    const before = previous;
    previous = error;
    if (SUMMARIES.has(error.keyword)) continue;
    const inner = error.keywordLocation.slice(1);
    if (ALTERNATIVES.test(inner.slice(0, inner.lastIndexOf("/")))) continue;
    const issue = describe(error, before);
    const key = `${issue.path}\n${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(issue);
  }
  // Should a library version report only summaries, still say that something failed.
  if (issues.length === 0 && errors.length > 0) {
    const first = errors[0] as OutputUnit;
    issues.push({ path: pointer(first.instanceLocation), message: trim(first.error) });
  }
  return issues;
}

function describe(error: OutputUnit, before: OutputUnit | undefined): ValidationIssue {
  const path = pointer(error.instanceLocation);
  switch (error.keyword) {
    case "type": {
      const got = /type "([^"]+)"/.exec(error.error)?.[1];
      const expected = /Expected "([^"]+)"/.exec(error.error)?.[1];
      if (expected !== undefined) {
        return {
          path,
          message: got === undefined ? `expected ${expected}` : `expected ${expected}, got ${got}`,
        };
      }
      break;
    }
    case "required": {
      const name = /property "(.*)"\.?$/.exec(error.error)?.[1];
      if (name !== undefined) return { path: `${path}/${escapePointer(name)}`, message: "required" };
      break;
    }
    case "false": {
      const parent = before?.keyword ?? "";
      if (parent === "additionalProperties" || parent === "unevaluatedProperties") {
        return { path, message: "unexpected property" };
      }
      if (parent === "items" || parent === "unevaluatedItems" || parent === "prefixItems") {
        return { path, message: "unexpected item" };
      }
      return { path, message: "not allowed" };
    }
  }
  return { path, message: trim(error.error) };
}

function pointer(location: string): string {
  return location.startsWith("#") ? location.slice(1) : location;
}

function escapePointer(name: string): string {
  return name.replaceAll("~", "~0").replaceAll("/", "~1");
}

function trim(message: string): string {
  return message.endsWith(".") ? message.slice(0, -1) : message;
}
