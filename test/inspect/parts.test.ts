// The inspector's parts on their own: the bounds of the event stream and the dialogs, the wire log's cut, the
// "copy as an mcpkit command" quoting, and the page's sources (no HTML sink anywhere).
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Dialogs, MAX_DIALOGS } from "../../src/cli/inspect/dialogs.js";
import {
  BACKLOG_EVENTS,
  EventHub,
  MAX_LISTENERS,
  WIRE_PREVIEW_CHARS,
  wireEntry,
} from "../../src/cli/inspect/events.js";
import { cliCommand, shellWord } from "../../src/cli/inspect/page/cli-command.js";
import { runCli } from "../../src/cli/run.js";
import { fakeIo } from "../cli/fake-io.js";
import { repoRoot } from "../support/wire-schema.js";

function fakeResponse() {
  const frames: string[] = [];
  const listeners: (() => void)[] = [];
  const res = {
    writeHead: () => res,
    write: (frame: string) => frames.push(frame) > 0,
    end: () => {},
    on: (_event: string, listener: () => void) => listeners.push(listener),
  };
  return {
    res: res as unknown as ServerResponse,
    frames,
    close: () => {
      for (const listener of listeners) listener();
    },
  };
}

describe("the event stream", () => {
  it("replays at most BACKLOG_EVENTS to a page that comes late, the newest ones", () => {
    const hub = new EventHub();
    for (let i = 0; i < BACKLOG_EVENTS + 5; i++) hub.publish("n", i);
    const late = fakeResponse();
    expect(hub.attach(late.res)).toBe(true);
    expect(late.frames).toHaveLength(BACKLOG_EVENTS);
    expect(late.frames[0]).toContain("data: 5\n");
    hub.publish("n", "live");
    expect(late.frames.at(-1)).toContain('data: "live"');
  });

  it("still gives a late page the pinned events the backlog dropped (the connection, open dialogs), once", () => {
    const hub = new EventHub();
    hub.publish("connection", { state: "connected" }, "connection");
    hub.publish("dialog", { id: "a" }, "dialog:a");
    hub.publish("dialog", { id: "b" }, "dialog:b");
    hub.unpin("dialog:b");
    for (let i = 0; i < BACKLOG_EVENTS; i++) hub.publish("wire", i);
    const late = fakeResponse();
    hub.attach(late.res);
    expect(late.frames).toHaveLength(BACKLOG_EVENTS + 2);
    expect(late.frames[0]).toContain("event: connection");
    expect(late.frames[1]).toContain('"id":"a"');
    // Still in the backlog: replayed from there, not twice.
    const fresh = new EventHub();
    fresh.publish("connection", { state: "connected" }, "connection");
    const page = fakeResponse();
    fresh.attach(page.res);
    expect(page.frames).toHaveLength(1);
  });

  it("resumes after Last-Event-ID: a reconnecting page gets only what it missed", () => {
    const hub = new EventHub();
    for (let i = 0; i < 10; i++) hub.publish("wire", i, i === 0 ? "connection" : undefined);
    const back = fakeResponse();
    hub.attach(back.res, 6);
    expect(back.frames.map((f) => /data: (\d+)/.exec(f)?.[1])).toEqual(["7", "8", "9"]);
  });

  it("refuses a listener over MAX_LISTENERS, and takes one again when a page leaves", () => {
    const hub = new EventHub();
    const pages = Array.from({ length: MAX_LISTENERS }, () => fakeResponse());
    for (const page of pages) expect(hub.attach(page.res)).toBe(true);
    expect(hub.attach(fakeResponse().res)).toBe(false);
    pages[0]?.close();
    expect(hub.attach(fakeResponse().res)).toBe(true);
  });

  it("cuts a wire message over WIRE_PREVIEW_CHARS and says how long it was", () => {
    const small = wireEntry("out", { jsonrpc: "2.0", id: 1, method: "tools/call", params: {} });
    expect(small).toMatchObject({ direction: "out", method: "tools/call", id: 1, message: { id: 1 } });
    // Every entry says its size, which the page's log sums to stay under its bound of characters.
    expect(small.size).toBe(JSON.stringify(small.message).length);
    const big = wireEntry("in", { jsonrpc: "2.0", id: 2, result: { text: "x".repeat(WIRE_PREVIEW_CHARS) } });
    expect(big.truncated).toBe(true);
    expect(big.message).toBeUndefined();
    expect((big.preview as string).length).toBe(WIRE_PREVIEW_CHARS);
    expect(big.size).toBeGreaterThan(WIRE_PREVIEW_CHARS);
  });
});

describe("the dialogs", () => {
  it("resolves with the user's answer, rejects on a refusal, and withdraws the dialog either way", async () => {
    const hub = new EventHub();
    const seen = fakeResponse();
    hub.attach(seen.res);
    const dialogs = new Dialogs(hub);
    const asked = dialogs.ask("elicitation", { message: "?" }, new AbortController().signal);
    const id = JSON.parse((seen.frames.at(-1) ?? "").split("data: ")[1] ?? "{}").id as string;
    expect(dialogs.answer(id, { action: "accept" })).toBe(true);
    await expect(asked).resolves.toEqual({ action: "accept" });
    expect(seen.frames.at(-1)).toContain("event: dialog-closed");
    expect(dialogs.answer(id, {})).toBe(false);
    const refused = dialogs.ask("sampling", {}, new AbortController().signal);
    const second = JSON.parse((seen.frames.at(-1) ?? "").split("data: ")[1] ?? "{}").id as string;
    expect(dialogs.reject(second)).toBe(true);
    // The spec's answer to a rejected sampling request (client/sampling, error handling).
    await expect(refused).rejects.toMatchObject({ code: -1, message: "User rejected sampling request" });
    expect(dialogs.reject(second)).toBe(false);
  });

  it("puts the --sampling-reply draft in each sampling dialog, not in elicitations", async () => {
    const hub = new EventHub();
    const seen = fakeResponse();
    hub.attach(seen.res);
    const draft = { role: "assistant", model: "m", content: { type: "text", text: "fixed" } };
    const dialogs = new Dialogs(hub, { samplingDraft: draft });
    const data = () => JSON.parse((seen.frames.at(-1) ?? "").split("data: ")[1] ?? "{}");
    void dialogs.ask("sampling", { messages: [] }, new AbortController().signal).catch(() => {});
    expect(data()).toMatchObject({ kind: "sampling", draft });
    void dialogs.ask("elicitation", { message: "?" }, new AbortController().signal).catch(() => {});
    expect(data().draft).toBeUndefined();
    dialogs.closeAll();
  });

  it("withdraws a dialog whose request ended, and refuses one over MAX_DIALOGS", async () => {
    const dialogs = new Dialogs(new EventHub());
    const ended = new AbortController();
    const asked = dialogs.ask("elicitation", {}, ended.signal);
    ended.abort(new Error("deadline"));
    await expect(asked).rejects.toThrow("deadline");
    const open = Array.from({ length: MAX_DIALOGS }, () =>
      dialogs.ask("elicitation", {}, new AbortController().signal),
    );
    await expect(dialogs.ask("elicitation", {}, new AbortController().signal)).rejects.toMatchObject({
      code: "CAPACITY",
    });
    dialogs.closeAll();
    for (const pending of open) await expect(pending).rejects.toThrow("closed");
  });
});

describe("copy as an mcpkit command", () => {
  it("quotes for a POSIX shell", () => {
    expect(shellWord("add")).toBe("add");
    expect(shellWord("")).toBe("''");
    expect(shellWord(`{"a":1}`)).toBe(`'{"a":1}'`);
    expect(shellWord("it's $(rm -rf ~)")).toBe(`'it'\\''s $(rm -rf ~)'`);
  });

  it("puts the command after a URL, and before -- for a program", () => {
    const http = { kind: "http", argv: ["http://127.0.0.1:3000/mcp"] };
    expect(cliCommand(http, "tools/call", { name: "add", arguments: { a: 1 } }, "2026-07-28")).toBe(
      `mcpkit --era 2026-07-28 http://127.0.0.1:3000/mcp call add --args '{"a":1}'`,
    );
    const stdio = { kind: "stdio", argv: ["--", "node", "my server.js"] };
    expect(cliCommand(stdio, "resources/read", { uri: "file:///a b" })).toBe(
      `mcpkit read 'file:///a b' -- node 'my server.js'`,
    );
    expect(
      cliCommand(stdio, "completion/complete", {
        ref: { type: "ref/resource", uri: "t://{id}" },
        argument: { name: "id", value: "a" },
      }),
    ).toBe(`mcpkit complete --resource 't://{id}' id=a -- node 'my server.js'`);
    expect(cliCommand(stdio, "tasks/get", {})).toBeUndefined();
  });
});

describe("the page's sources", () => {
  it("never parse HTML: no innerHTML, outerHTML, insertAdjacentHTML, document.write, srcdoc or eval", () => {
    const dir = join(repoRoot, "src/cli/inspect/page");
    const files = readdirSync(dir).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    const sinks =
      /\.(innerHTML|outerHTML|insertAdjacentHTML|srcdoc)\b|document\.write|\beval\(|new Function\(|DOMParser|createContextualFragment/;
    for (const file of files) {
      const code = readFileSync(join(dir, file), "utf8").replace(/^\s*\/\/.*$/gm, "");
      expect(sinks.exec(code)?.[0], file).toBeUndefined();
    }
  });
});

describe("--sampling-reply FILE", () => {
  it("is a usage error (exit 2) when the file is missing, not JSON, or not a CreateMessageResult", async () => {
    const dir = mkdtempSync(join(tmpdir(), "mcpkit-inspect-reply-"));
    try {
      const cases: [string, string | undefined, RegExp][] = [
        ["missing.json", undefined, /cannot read/],
        ["bad.json", "{ nope", /is not JSON/],
        ["wrong.json", JSON.stringify({ role: "robot", model: "m", content: {} }), /"role" must be/],
      ];
      for (const [name, text, message] of cases) {
        const file = join(dir, name);
        if (text !== undefined) writeFileSync(file, text);
        const fake = fakeIo();
        const status = await runCli(
          ["inspect", "--no-open", "http://127.0.0.1:9/mcp", "--sampling-reply", file],
          fake.io,
        );
        expect(status, name).toBe(2);
        expect(fake.stderr.text).toMatch(message);
        expect(fake.stdout.text).toBe("");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
