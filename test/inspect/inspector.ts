/** Runs the BUILT `mcpkit inspect` as a subprocess (as a user would) and reads the URL it prints first. */
import { startCli, waitUntil } from "../cli/built-cli.js";

export interface RunningInspector {
  url: string;
  port: number;
  token: string;
  origin: string;
  stderr(): string;
  /** Ctrl-C, then the exit status. */
  stop(): Promise<number>;
}

export async function startInspector(args: readonly string[]): Promise<RunningInspector> {
  const cli = startCli(["inspect", "--no-open", ...args], { keepStdin: true });
  await waitUntil(
    () => cli.stdout().includes("\n"),
    () => `no URL printed; stderr: ${cli.stderr()}`,
  );
  const url = cli.stdout().split("\n")[0] as string;
  const parsed = new URL(url);
  return {
    url,
    port: Number(parsed.port),
    token: parsed.searchParams.get("token") ?? "",
    origin: parsed.origin,
    stderr: cli.stderr,
    stop: async () => {
      cli.child.kill("SIGINT");
      return cli.exited;
    },
  };
}

/** POSTs one inspector operation as the page does (token header, the page's Origin), unless overridden. */
export async function op(
  inspector: RunningInspector,
  name: string,
  params: { [key: string]: unknown } = {},
  headers: { [key: string]: string } = {},
): Promise<{ status: number; body: string }> {
  const response = await fetch(`${inspector.origin}/api`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-mcpkit-token": inspector.token,
      origin: inspector.origin,
      ...headers,
    },
    body: JSON.stringify({ op: name, params }),
  });
  return { status: response.status, body: await response.text() };
}
