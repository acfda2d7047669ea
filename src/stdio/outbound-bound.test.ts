/**
 * Every frame the stdio server transport writes stays within `maxOutboundFrameBytes`, including the errors it
 * writes itself. A request whose id is almost as long as the inbound frame limit used to get an error repeating
 * that id, past the outbound bound (found by the fuzz suite, fuzz/): a peer with the same frame limit then drops
 * the connection. Such an error now goes without its id.
 */
import { describe, expect, it } from "vitest";
import { stdioPipes } from "../../test/support/stdio-pipes.js";
import { until } from "../../test/support/until.js";
import { StdioServerTransport } from "./server-transport.js";

const LIMIT = 1_000;

async function started() {
  const { input, output, lines } = stdioPipes();
  const transport = new StdioServerTransport({
    input,
    output,
    policy: { maxFrameBytes: LIMIT, maxOutboundFrameBytes: LIMIT },
  });
  await transport.start({ message: () => {}, close: () => {} });
  return { input, transport, lines };
}

/** A frame of exactly `LIMIT` bytes whose id takes all the room the rest leaves. */
function withLongId(message: { [key: string]: unknown }): string {
  const room = LIMIT - JSON.stringify({ ...message, id: "" }).length;
  return JSON.stringify({ ...message, id: "i".repeat(room) });
}

describe("StdioServerTransport: its own errors stay within maxOutboundFrameBytes", () => {
  it("answers a malformed request whose long id would pass the bound without the id", async () => {
    const t = await started();
    const frame = withLongId({ jsonrpc: "1.0", method: "ping" });
    expect(frame.length).toBe(LIMIT);
    t.input.write(`${frame}\n`);
    // The same request with a short id still gets its id back.
    t.input.write(`${JSON.stringify({ jsonrpc: "1.0", id: "short", method: "ping" })}\n`);
    await until(() => t.lines.length === 2);
    for (const line of t.lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(LIMIT);
    const [long, short] = t.lines.map(
      (line) => JSON.parse(line) as { id?: unknown; error: { code: number } },
    );
    expect(long).toEqual({
      jsonrpc: "2.0",
      error: { code: -32600, message: 'Invalid Request: "jsonrpc" must be "2.0"' },
    });
    expect(short).toMatchObject({ id: "short", error: { code: -32600 } });
  });

  it("sends the -32603 of a response too large without the id when the id alone passes the bound", async () => {
    const t = await started();
    const id = "i".repeat(LIMIT - 20);
    await expect(t.transport.send({ jsonrpc: "2.0", id, result: {} })).rejects.toMatchObject({
      code: "MESSAGE_TOO_LARGE",
    });
    await until(() => t.lines.length === 1);
    expect(Buffer.byteLength(t.lines[0] ?? "")).toBeLessThanOrEqual(LIMIT);
    expect(JSON.parse(t.lines[0] ?? "")).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32603,
        message: `Response too large for the server's stdio frame: ${LIMIT - 20 + 37} bytes, over maxOutboundFrameBytes (${LIMIT})`,
        data: {
          option: "maxOutboundFrameBytes",
          limit: LIMIT,
          size: LIMIT - 20 + 37,
          reason: "response_too_large",
        },
      },
    });
  });
});
