/** The text of `mcpkit --help`. */
export const USAGE = `mcpkit: talk to a Model Context Protocol server from the command line

Usage:
  mcpkit [flags] <url> [command [args]]
  mcpkit [flags] -- <program> [program args] [command [args]]
  mcpkit [flags] <command> [args] -- <program> [program args]

With "-- <program> ...", the first word after the program that names a command starts the command; when a
program argument is itself a command name, put the command before "--".

  mcpkit gateway --config FILE [--stdio | --port PORT]   (see mcpkit gateway --help)

Commands (default: info):
  info                              server, era, versions, capabilities, instructions
  tools                             list the tools
  call NAME [key=value ...]         call a tool; values are converted with the tool's input schema
  call NAME --args JSON             call a tool with a JSON object of arguments
  resources                         list the resources and resource templates
  read URI                          read a resource
  prompts                           list the prompts
  prompt NAME [key=value ...]       render a prompt (or --args JSON)
  complete --prompt NAME ARG=VALUE  complete a prompt argument
  complete --resource TEMPLATE ARG=VALUE
                                    complete a resource template variable (--context k=v for chosen ones)
  listen [--uri URI ...]            print notifications until Ctrl-C (list changes, resource updates, logs)
  inspect [--port N] [--no-open]    a web inspector on 127.0.0.1: prints its URL (with a token) first, opens
                                    it, runs until Ctrl-C; "mcpkit inspect <url>" works too (docs/inspect.md)

Flags:
  --era 2025-11-25|2026-07-28       speak only this era (default: 2026-07-28, falling back to 2025-11-25)
  --fallback lenient|strict         when to fall back to 2025-11-25 (default lenient: on any refusal of
                                    server/discover; strict: only where the server says it is 2025-only)
  -H, --header "Name: value"        an HTTP header on every request (repeatable; never printed)
  --json                            machine output: JSON on stdout, errors as JSON on stderr
  --timeout MS                      deadline of each operation, input prompts included (default 60000)
  --log-level LEVEL                 ask for server log messages at LEVEL and above (shown on stderr)
  --allow-http                      allow plain http to a host that is not loopback
  --login                           log in with OAuth when the server asks: prints the URL to open, waits for
                                    the browser's redirect on 127.0.0.1, keeps the tokens for the next run
  --credentials FILE                where --login keeps tokens (default ~/.config/mcpkit/credentials.json)
  --sampling-reply FILE             inspect: the reply (a JSON CreateMessageResult) each sampling dialog drafts
  --trace                           print the span tree of the run (each request, with its duration) on stderr;
                                    needs @opentelemetry/api installed
  -v, --verbose                     pass the server's stderr through, show client warnings
  -h, --help                        this text
  --version                         the mcpkit version

Exit status:
  0 ok, 1 the tool reported an error, 2 usage error, 3 protocol error (the server answered with an
  error or broke the protocol), 4 connection failure (unreachable, timed out, connection lost),
  70 internal error, 130 interrupted

Examples:
  npx mcpkit -- npx @modelcontextprotocol/server-everything stdio tools
  mcpkit http://127.0.0.1:3000/mcp call add a=1 b=2
  mcpkit --era 2025-11-25 -- node server.js listen --uri file:///notes.md
  mcpkit inspect -- npx @modelcontextprotocol/server-everything stdio
`;
