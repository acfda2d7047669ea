import type { JsonSchemaValidatorFactory } from "../protocol/validation.js";

let loading: Promise<JsonSchemaValidatorFactory> | undefined;

/**
 * Loads the default raw JSON Schema validator (`@cfworker/json-schema`) on first use, with a dynamic import, so
 * it stays out of the core's import graph until a raw schema is validated. A failed load is retried next time.
 */
export function loadJsonSchemaValidator(): Promise<JsonSchemaValidatorFactory> {
  loading ??= import("./json-schema.js").then(
    (module) => module.jsonSchemaValidator,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
