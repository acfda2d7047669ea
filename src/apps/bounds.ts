import { byteLength } from "./meta.js";

/** The bounds of one bridge message. */
export interface MessageBounds {
  messageBytes: number;
  jsonDepth: number;
  jsonNodes: number;
}

/** Why a message was refused before it was read. */
export type BoundsProblem = "message-size" | "json-depth" | "json-nodes" | "parse";

/**
 * Reads one received message within the bounds, before anything interprets it: a string is measured (UTF-8 bytes)
 * before `JSON.parse`; an object (a structured clone) is walked without recursion, stopping at the first bound
 * crossed (its size is counted as its JSON text would be). Returns the value, or the problem (with the parsed
 * value when text parsed but crossed a depth or node bound).
 */
export function readBounded(
  data: unknown,
  bounds: MessageBounds,
): { value: unknown } | { problem: BoundsProblem; parsed?: unknown } {
  let value = data;
  if (typeof data === "string") {
    if (data.length > bounds.messageBytes) return { problem: "message-size" };
    if (data.length * 3 > bounds.messageBytes && byteLength(data) > bounds.messageBytes) {
      return { problem: "message-size" };
    }
    try {
      value = JSON.parse(data);
    } catch {
      return { problem: "parse" };
    }
  }
  const problem = walk(value, bounds, typeof data !== "string");
  if (problem === undefined) return { value };
  // Parsed text that crossed a bound is handed back so a refused request can still be answered by its id.
  return typeof data === "string" ? { problem, parsed: value } : { problem };
}

function walk(root: unknown, bounds: MessageBounds, countBytes: boolean): BoundsProblem | undefined {
  let nodes = 0;
  let bytes = 0;
  const stack: [unknown, number][] = [[root, 1]];
  const seen = new Set<object>();
  for (;;) {
    const top = stack.pop();
    if (top === undefined) return undefined;
    const [node, depth] = top;
    nodes++;
    if (nodes > bounds.jsonNodes) return "json-nodes";
    if (typeof node === "string") bytes += node.length + 2;
    else if (typeof node === "number") bytes += 24;
    else bytes += 5;
    if (typeof node === "object" && node !== null) {
      if (depth > bounds.jsonDepth) return "json-depth";
      if (seen.has(node)) return "json-depth";
      seen.add(node);
      if (Array.isArray(node)) {
        for (const child of node) stack.push([child, depth + 1]);
      } else {
        for (const key of Object.keys(node)) {
          bytes += key.length + 4;
          stack.push([(node as { [key: string]: unknown })[key], depth + 1]);
        }
      }
    }
    if (countBytes && bytes > bounds.messageBytes) return "message-size";
  }
}
