/**
 * `mcpkit/validation`: the default raw JSON Schema validator. The server and the client load it on first use
 * (a dynamic import), so it costs nothing unless a raw-schema tool is validated. Import it directly to hand it
 * to something else, or to load it up front.
 */
export type { JsonSchemaValidatorFactory, ValidationIssue, ValueValidator } from "../protocol/validation.js";
export { describeIssues } from "../protocol/validation.js";
export { jsonSchemaValidator } from "./json-schema.js";
