import { describe, expect, it } from "vitest";
import { StderrTail } from "./stderr-tail.js";

describe("StderrTail", () => {
  it("keeps everything below its capacity, as text", () => {
    const tail = new StderrTail(100);
    tail.push(Buffer.from("one\n"));
    tail.push(Buffer.from("two\n"));
    expect(tail.text()).toBe("one\ntwo");
    expect(tail.quote()).toBe("\nits stderr:\n  | one\n  | two");
  });

  it("keeps only the last bytes across many small chunks (the ring wraps)", () => {
    const tail = new StderrTail(10);
    for (let i = 0; i < 1_000; i++) tail.push(Buffer.from(`${i % 10}`));
    expect(tail.text()).toBe("0123456789");
    tail.push(Buffer.from("abc"));
    expect(tail.text()).toBe("3456789abc");
    expect(tail.receivedBytes).toBe(1_003);
  });

  it("keeps the end of a chunk larger than its capacity", () => {
    const tail = new StderrTail(9);
    tail.push(Buffer.from("start "));
    tail.push(Buffer.from(`${"x".repeat(1_000_000)}\nthe end`));
    expect(tail.text()).toBe("x\nthe end");
    expect(tail.quote()).toBe("\nthe end of its stderr:\n  | x\n  | the end");
  });

  it("drops a character the cut went through, and keeps whole ones", () => {
    const tail = new StderrTail(5);
    tail.push(Buffer.from("✓✓", "utf8")); // 6 bytes: the first ✓ loses its first byte
    expect(tail.text()).toBe("✓");
  });

  it("removes escape sequences and control characters, and blank lines at either end", () => {
    const tail = new StderrTail(200);
    tail.push(
      Buffer.from("\n\n\u001b[1;31mError\u001b[0m: bad\u0007\r\n\u001b]0;title\u0007\tindented  \r\n\n"),
    );
    expect(tail.text()).toBe("Error: bad\n\tindented");
  });

  it("quotes at most the last 40 lines", () => {
    const tail = new StderrTail(4_096);
    tail.push(Buffer.from(Array.from({ length: 100 }, (_, i) => `line ${i}`).join("\n")));
    const quoted = tail.quote().split("\n").slice(2);
    expect(quoted).toHaveLength(40);
    expect(quoted[0]).toBe("  | line 60");
    expect(quoted[39]).toBe("  | line 99");
  });

  it("keeps nothing at capacity 0, and quotes nothing when empty", () => {
    const tail = new StderrTail(0);
    tail.push(Buffer.from("lost"));
    expect(tail.text()).toBe("");
    expect(tail.quote()).toBe("");
    expect(tail.receivedBytes).toBe(4);
  });
});
