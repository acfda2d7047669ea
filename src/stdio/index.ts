/**
 * `mcpkit/stdio` (Node only): MCP over a subprocess's stdin/stdout, one JSON-RPC message per line.
 */

/** The errors stdio operations reject with. */
export { JsonRpcError, McpkitError, type McpkitErrorCode } from "../jsonrpc/errors.js";
/** What the launcher's close sequence did, and how the server process ended. */
export type { StdioCleanupReport, StdioExit } from "./cleanup.js";
/** The client launcher: starts a server subprocess and cleans up its whole process tree on close. */
export { type LaunchedStdio, type LaunchStdioOptions, launchStdio } from "./launcher.js";
/** The security policy: checked bounds and trust settings, with the `default` and `gateway` presets. */
export {
  STDIO_PRESETS,
  type StderrMode,
  type StdioPolicyInput,
  type StdioSecurityPolicy,
  stdioPolicy,
} from "./policy.js";
/** The variable that carries each launch's cleanup marker into the processes it starts. */
export { STDIO_MARKER_ENV } from "./process-tree.js";
/** The server side: serves an mcpkit server on this process's stdin/stdout. */
export {
  type ServeStdioOptions,
  StdioServerTransport,
  type StdioServerTransportOptions,
  serveStdio,
} from "./server-transport.js";
/** The environment entries a launch passes, and the receiver of captured stderr. */
export type { ChildEnvInput } from "./spawn-config.js";
export type { StderrHandler } from "./stderr.js";
