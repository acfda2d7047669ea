import { Client } from "../../src/client/client.js";
import type { ClientOptions } from "../../src/client/types.js";
import type { Server } from "../../src/server/server.js";
import { createInProcessPair } from "../../src/transports/in-process.js";

/** What {@link connectInProcess} takes: client options without the transport (`clientInfo` defaults to `c`/`1`). */
export type InProcessClientOptions = Omit<ClientOptions, "transport" | "clientInfo"> &
  Partial<Pick<ClientOptions, "clientInfo">>;

/**
 * An mcpkit `Client` connected to `server` in process; `closers` (when given) gets what closes both, client first.
 *
 * @example
 * const client = await connectInProcess(server, { protocolVersion: era }, (...c) => closers.push(...c));
 */
export async function connectInProcess(
  server: Server,
  options: InProcessClientOptions,
  closers?: (...close: Array<() => Promise<unknown>>) => void,
): Promise<Client> {
  const [clientSide, serverSide] = createInProcessPair();
  await server.connect(serverSide);
  const client = new Client({ clientInfo: { name: "c", version: "1" }, ...options, transport: clientSide });
  await client.connect();
  closers?.(
    () => client.close(),
    () => server.close(),
  );
  return client;
}
