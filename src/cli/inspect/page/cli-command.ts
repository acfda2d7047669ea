// "Copy as an mcpkit command": a request from the wire log or the history as the command line that repeats it.
// Pure (no DOM), so the unit tests check the quoting.

/** The target as `mcpkit` takes it: `[url]` or `["--", program, ...args]`. */
export interface TargetArgv {
  kind: string;
  argv: string[];
}

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One word for a POSIX shell: as is when it is plain, else single-quoted (a `'` as `'\''`). */
export function shellWord(word: string): string {
  if (word !== "" && SAFE.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

type Params = { [key: string]: unknown };

/** The `mcpkit` words of a request, without the target; undefined for a method the CLI has no command for. */
export function commandWords(method: string, params: Params | undefined): string[] | undefined {
  const p = params ?? {};
  const args = (value: unknown) =>
    typeof value === "object" && value !== null && Object.keys(value).length > 0
      ? ["--args", JSON.stringify(value)]
      : [];
  switch (method) {
    case "tools/call":
      return ["call", String(p.name ?? ""), ...args(p.arguments)];
    case "tools/list":
      return ["tools"];
    case "resources/list":
    case "resources/templates/list":
      return ["resources"];
    case "resources/read":
      return ["read", String(p.uri ?? "")];
    case "prompts/list":
      return ["prompts"];
    case "prompts/get":
      return ["prompt", String(p.name ?? ""), ...args(p.arguments)];
    case "initialize":
    case "server/discover":
      return ["info"];
    case "completion/complete": {
      const ref = (p.ref ?? {}) as Params;
      const argument = (p.argument ?? {}) as Params;
      const words =
        ref.type === "ref/resource"
          ? ["complete", "--resource", String(ref.uri ?? "")]
          : ["complete", "--prompt", String(ref.name ?? "")];
      words.push(`${String(argument.name ?? "")}=${String(argument.value ?? "")}`);
      const context = ((p.context ?? {}) as Params).arguments;
      for (const [k, v] of Object.entries((context ?? {}) as Params))
        words.push("--context", `${k}=${String(v)}`);
      return words;
    }
    default:
      return undefined;
  }
}

/**
 * The whole command line: `mcpkit [--era E] URL command ...` for HTTP, `mcpkit [--era E] command ... -- program
 * args` for stdio (the command before `--`, so no program argument is taken for a command).
 */
export function cliCommand(
  target: TargetArgv,
  method: string,
  params: Params | undefined,
  era?: string,
): string | undefined {
  const words = commandWords(method, params);
  if (words === undefined) return undefined;
  const flags = era === undefined ? [] : ["--era", era];
  const line =
    target.kind === "http"
      ? ["mcpkit", ...flags, ...target.argv, ...words]
      : ["mcpkit", ...flags, ...words, ...target.argv];
  return line.map(shellWord).join(" ");
}
