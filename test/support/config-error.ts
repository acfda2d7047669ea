import { McpkitError } from "../../src/jsonrpc/errors.js";

/**
 * The `McpkitError` `INVALID_CONFIG` that `build` throws; any other outcome (no error, another error or code)
 * fails the test.
 *
 * @example
 * expect(configError(() => createServer({ ...base, tasks: "yes" as never })).details).toEqual({ key: "tasks" });
 */
export function configError(build: () => unknown): McpkitError {
  try {
    build();
  } catch (error) {
    if (error instanceof McpkitError && error.code === "INVALID_CONFIG") return error;
    throw new Error(`expected INVALID_CONFIG, got ${String(error)}`, { cause: error });
  }
  throw new Error("expected INVALID_CONFIG, nothing was thrown");
}
