import { parseArgs } from "node:util";
import type { LoggingLevel } from "../protocol/types/common.js";
import { LOGGING_LEVELS } from "../protocol/types/common.js";
import { type Era, LEGACY_VERSION, MODERN_VERSION } from "../protocol/versions.js";
import { UsageError } from "./exit-codes.js";

/** The commands of `mcpkit`, in the order `--help` lists them. */
export const COMMANDS = [
  "info",
  "tools",
  "call",
  "resources",
  "read",
  "prompts",
  "prompt",
  "complete",
  "listen",
  "inspect",
] as const;
export type CommandName = (typeof COMMANDS)[number];

// In the order --help lists them.
const ERAS: readonly Era[] = [LEGACY_VERSION, MODERN_VERSION];

/** Where the server is: an HTTP endpoint, or a program to launch and speak to over stdio. */
export type Target = { kind: "http"; url: string } | { kind: "stdio"; command: string; args: string[] };

/** A checked command line. */
export interface CliArgs {
  target: Target;
  command: CommandName;
  /** The words after the command: a tool, prompt or URI name, then `key=value` pairs. */
  operands: string[];
  era: Era | undefined;
  /** The client's `versionFallback`: `lenient` unless `--fallback strict`. */
  fallback: (typeof FALLBACKS)[number];
  headers: { [name: string]: string };
  json: boolean;
  /** `--args`: the arguments as one JSON object (call, prompt). */
  argsJson: { [key: string]: unknown } | undefined;
  timeoutMs: number;
  logLevel: LoggingLevel | undefined;
  /** `complete`: the reference, a prompt name or a resource template. */
  ref: { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string } | undefined;
  /** `complete --context k=v`: arguments already chosen. */
  context: string[];
  /** `listen --uri`: resources whose updates to hear. */
  uris: string[];
  verbose: boolean;
  allowHttp: boolean;
  /** `--login`: log in with OAuth when the HTTP server asks (401). */
  login: boolean;
  /** `--trace`: print the span tree of the run, with durations, on stderr. */
  trace: boolean;
  /** `--credentials FILE`: where `--login` keeps registrations and tokens (default: under the config dir). */
  credentials: string | undefined;
  /** `inspect --port`: the inspector's port on 127.0.0.1 (0: any free port). */
  port: number;
  /** `inspect --no-open`: print the URL without opening a browser. */
  open: boolean;
  /** `inspect --sampling-reply FILE`: a JSON CreateMessageResult every sampling dialog starts from. */
  samplingReply: string | undefined;
}

export type ParsedCommandLine = { kind: "help" } | { kind: "version" } | { kind: "run"; args: CliArgs };

/** The default deadline of one operation (connect, list, call), in milliseconds. */
export const DEFAULT_TIMEOUT_MS = 60_000;

/** How the CLI falls back to 2025-11-25 (`--fallback`): widely by default, to reach any server it is pointed at. */
const FALLBACKS = ["lenient", "strict"] as const;

const OPTIONS = {
  era: { type: "string" },
  fallback: { type: "string" },
  header: { type: "string", short: "H", multiple: true },
  json: { type: "boolean" },
  args: { type: "string" },
  timeout: { type: "string" },
  "log-level": { type: "string" },
  prompt: { type: "string" },
  resource: { type: "string" },
  context: { type: "string", multiple: true },
  uri: { type: "string", multiple: true },
  verbose: { type: "boolean", short: "v" },
  "allow-http": { type: "boolean" },
  login: { type: "boolean" },
  trace: { type: "boolean" },
  credentials: { type: "string" },
  port: { type: "string" },
  "no-open": { type: "boolean" },
  "sampling-reply": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" },
} as const;

type Values = ReturnType<typeof parseWords>["values"];

function parseWords(words: string[]) {
  try {
    return parseArgs({ args: words, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(
      error instanceof Error ? (error.message.split("\n")[0] ?? error.message) : String(error),
    );
  }
}

function isCommand(word: string): word is CommandName {
  return (COMMANDS as readonly string[]).includes(word);
}

/**
 * Parses `mcpkit` arguments (without `node` and the script). Three shapes:
 * `<url> [command ...]`, `[command ...] -- <program> [args]`, and `-- <program> [args] [command ...]`, where the
 * command is the first word after the program that names one.
 *
 * @example
 * parseCommandLine(["--", "npx", "@modelcontextprotocol/server-everything", "stdio", "tools"]);
 * // { kind: "run", args: { target: { kind: "stdio", command: "npx", args: [...] }, command: "tools", ... } }
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommandLine {
  const dash = argv.indexOf("--");
  let own: string[];
  let program: string[] | undefined;
  if (dash < 0) {
    own = [...argv];
  } else {
    const before = argv.slice(0, dash);
    const after = argv.slice(dash + 1);
    if (parseWords(before).positionals.length > 0) {
      own = before;
      program = after;
    } else {
      const at = after.findIndex((word, index) => index > 0 && isCommand(word));
      own = at < 0 ? before : [...before, ...after.slice(at)];
      program = at < 0 ? after : after.slice(0, at);
    }
  }
  const { values, positionals } = parseWords(own);
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  let target: Target;
  let rest: string[];
  // `mcpkit inspect <url>`: the command may come before the URL.
  if (positionals[0] === "inspect" && positionals.length > 1 && program === undefined) {
    positionals.splice(0, 1);
    positionals.splice(1, 0, "inspect");
  }
  if (program === undefined) {
    const [first, ...others] = positionals;
    if (first === undefined)
      throw new UsageError("no server given: pass an http(s) URL or -- <program> [args]");
    target = { kind: "http", url: checkUrl(first) };
    rest = others;
  } else {
    const [command, ...args] = program;
    if (command === undefined || command === "")
      throw new UsageError("-- must be followed by a program to run");
    if (positionals[0] !== undefined && !isCommand(positionals[0]) && /^https?:/i.test(positionals[0])) {
      throw new UsageError("give either a URL or -- <program>, not both");
    }
    target = { kind: "stdio", command, args };
    rest = positionals;
  }
  const [word = "info", ...operands] = rest;
  if (!isCommand(word)) throw new UsageError(`unknown command "${word}" (commands: ${COMMANDS.join(", ")})`);
  const args = checked(target, word, operands, values);
  return { kind: "run", args };
}

function checked(target: Target, command: CommandName, operands: string[], values: Values): CliArgs {
  checkOperands(command, operands, values);
  if (values.header !== undefined && target.kind !== "http") {
    throw new UsageError("--header applies to an HTTP target only");
  }
  if ((values.login === true || values.credentials !== undefined) && target.kind !== "http") {
    throw new UsageError("--login and --credentials apply to an HTTP target only");
  }
  if (values.credentials === "") throw new UsageError("--credentials needs a file path");
  const ref = completionRef(command, values);
  return {
    target,
    command,
    operands,
    era: oneOf("--era", values.era, ERAS),
    fallback: oneOf("--fallback", values.fallback, FALLBACKS) ?? "lenient",
    headers: headersOf(values.header ?? []),
    json: values.json === true,
    argsJson: values.args === undefined ? undefined : argsObject(values.args),
    timeoutMs: timeoutOf(values.timeout),
    logLevel: oneOf("--log-level", values["log-level"], LOGGING_LEVELS),
    ref,
    context: values.context ?? [],
    uris: values.uri ?? [],
    verbose: values.verbose === true,
    allowHttp: values["allow-http"] === true,
    login: values.login === true || values.credentials !== undefined,
    trace: values.trace === true,
    credentials: values.credentials,
    port: portOf(command, values.port),
    open: values["no-open"] !== true,
    samplingReply: values["sampling-reply"],
  };
}

function checkOperands(command: CommandName, operands: string[], values: Values): void {
  const needsName: { [key: string]: string } = {
    call: "a tool name",
    read: "a URI",
    prompt: "a prompt name",
  };
  const what = needsName[command];
  if (what !== undefined && operands.length === 0) throw new UsageError(`${command} needs ${what}`);
  if (command === "read" && operands.length > 1) throw new UsageError("read takes one URI");
  if (values.args !== undefined && command !== "call" && command !== "prompt") {
    throw new UsageError("--args applies to call and prompt");
  }
  if (values.args !== undefined && operands.length > 1) {
    throw new UsageError("give the arguments either as --args JSON or as key=value pairs, not both");
  }
  if (values["no-open"] !== undefined && command !== "inspect")
    throw new UsageError("--no-open applies to inspect");
  if (values["sampling-reply"] !== undefined && command !== "inspect")
    throw new UsageError("--sampling-reply applies to inspect");
  if (values["sampling-reply"] === "") throw new UsageError("--sampling-reply needs a file path");
  if (
    ["info", "tools", "resources", "prompts", "listen", "inspect"].includes(command) &&
    operands.length > 0
  ) {
    throw new UsageError(`${command} takes no operands (got "${operands[0]}")`);
  }
  if (values.uri !== undefined && command !== "listen") throw new UsageError("--uri applies to listen");
  if (command === "complete" && operands.length !== 1) {
    throw new UsageError(
      "complete needs one ARGUMENT=VALUE (the argument being typed and its partial value)",
    );
  }
}

function completionRef(command: CommandName, values: Values): CliArgs["ref"] {
  const { prompt, resource } = values;
  if (command !== "complete") {
    if (prompt !== undefined || resource !== undefined || values.context !== undefined) {
      throw new UsageError("--prompt, --resource and --context apply to complete");
    }
    return undefined;
  }
  if ((prompt === undefined) === (resource === undefined)) {
    throw new UsageError("complete needs exactly one of --prompt NAME or --resource URI_TEMPLATE");
  }
  return prompt !== undefined
    ? { type: "ref/prompt", name: prompt }
    : { type: "ref/resource", uri: resource ?? "" };
}

function checkUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`"${text}" is not a URL: pass an http(s) URL or -- <program> [args]`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`the URL must be http or https (got ${url.protocol})`);
  }
  return text;
}

function headersOf(specs: string[]): { [name: string]: string } {
  const headers: { [name: string]: string } = {};
  for (const spec of specs) {
    const colon = spec.indexOf(":");
    const name = colon < 0 ? "" : spec.slice(0, colon).trim();
    // The value may be a secret: it is never echoed, only the name.
    if (colon < 0 || name === "") throw new UsageError("--header needs NAME: VALUE");
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
      throw new UsageError(`--header: "${name}" is not a header name`);
    headers[name] = spec.slice(colon + 1).trim();
  }
  return headers;
}

function argsObject(text: string): { [key: string]: unknown } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--args is not JSON: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError("--args must be a JSON object");
  }
  return value as { [key: string]: unknown };
}

function portOf(command: CommandName, text: string | undefined): number {
  if (text === undefined) return 0;
  if (command !== "inspect") throw new UsageError("--port applies to inspect");
  const value = Number(text);
  if (!/^\d+$/.test(text) || value > 65_535) {
    throw new UsageError(`--port must be a port number, 0 to 65535 (got "${text}")`);
  }
  return value;
}

function timeoutOf(text: string | undefined): number {
  if (text === undefined) return DEFAULT_TIMEOUT_MS;
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`--timeout must be a whole number of milliseconds (got "${text}")`);
  }
  return value;
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(", ")} (got "${value}")`);
  }
  return value as T;
}
