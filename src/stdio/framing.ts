import { decodeMessage, encodeMessage, parseMessage, requestIdOf } from "../jsonrpc/codec.js";
import { ErrorCode } from "../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../jsonrpc/errors.js";
import { limitError } from "../jsonrpc/limit-error.js";
import type { JsonRpcMessage, RequestId } from "../jsonrpc/message.js";

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
/** Frames are UTF-8: a frame that is not is refused, never repaired with U+FFFD and run. */
const utf8 = new TextDecoder("utf-8", { fatal: true });

/** What the decoder hands over for a frame whose bytes are not valid UTF-8. */
export class InvalidUtf8Frame {
  constructor(
    /** The frame with U+FFFD for each bad sequence: for an error's preview only, never to run. */
    readonly lossy: string,
  ) {}
}

/** Byte limits of a newline-delimited JSON-RPC stream. */
export interface FrameLimits {
  /** Largest inbound frame, newline excluded. */
  maxFrameBytes: number;
  /** Largest amount of received bytes waiting for their newline. */
  maxPendingBytes: number;
}

/**
 * Splits a byte stream into newline-delimited frames (one JSON-RPC message each), bounded in both frame size
 * and buffered bytes. Limits are checked before bytes are kept, so a peer that never sends a newline costs at
 * most `maxPendingBytes` (the policy's `maxPendingStdoutBytes`, the name its error carries). Empty lines are skipped; a trailing `\r` is dropped.
 * A frame that is not valid UTF-8 is handed over as an {@link InvalidUtf8Frame}, for the caller to refuse.
 */
export class FrameDecoder {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private handedOver = 0;

  constructor(
    private readonly limits: FrameLimits,
    private readonly onFrame: (frame: string | InvalidUtf8Frame) => void,
  ) {}

  /** Bytes received and not yet part of a whole frame. */
  get buffered(): number {
    return this.pendingBytes;
  }

  /** Frames handed over so far (blank lines are not frames). */
  get frames(): number {
    return this.handedOver;
  }

  /** Feeds a chunk. Throws `McpkitError` `MESSAGE_TOO_LARGE` naming the limit a frame or the buffer crossed. */
  push(chunk: Buffer): void {
    this.feed(chunk, 0, Number.POSITIVE_INFINITY);
  }

  /**
   * Feeds `chunk` from byte `from`, handing over at most `maxFrames` frames. Returns where it stopped: the
   * chunk's length once all of it was taken (an unterminated tail kept for the next chunk), else the first byte
   * of the frame the budget left for later (feed the chunk again from there). Throws as {@link push}.
   */
  feed(chunk: Buffer, from: number, maxFrames: number): number {
    let start = from;
    let handed = 0;
    for (;;) {
      const newline = chunk.indexOf(NEWLINE, start);
      if (newline < 0) break;
      if (handed >= maxFrames) return start;
      const length = this.pendingBytes + (newline - start);
      if (length > this.limits.maxFrameBytes) {
        throw tooLarge("maxFrameBytes", this.limits.maxFrameBytes, length, false);
      }
      if (this.pendingBytes === 0) {
        // The whole frame is in this chunk: decoded from it in place, no copy.
        if (this.emit(chunk, start, newline)) handed++;
      } else {
        const head = chunk.subarray(start, newline);
        const frame = Buffer.concat([...this.pending, head], this.pendingBytes + head.length);
        this.pending = [];
        this.pendingBytes = 0;
        if (this.emit(frame, 0, frame.length)) handed++;
      }
      start = newline + 1;
    }
    const rest = chunk.length - start;
    if (rest === 0) return chunk.length;
    // No newline yet: the frame is at least this long.
    if (this.pendingBytes + rest > this.limits.maxFrameBytes) {
      throw tooLarge("maxFrameBytes", this.limits.maxFrameBytes, this.pendingBytes + rest, true);
    }
    if (this.pendingBytes + rest > this.limits.maxPendingBytes) {
      throw tooLarge("maxPendingStdoutBytes", this.limits.maxPendingBytes, this.pendingBytes + rest, true);
    }
    // Copy: the stream may reuse the chunk's memory.
    this.pending.push(Buffer.from(chunk.subarray(start)));
    this.pendingBytes += rest;
    return chunk.length;
  }

  /** Hands over one frame; false for a blank line (nothing handed over). */
  private emit(bytes: Buffer, start: number, stop: number): boolean {
    let end = stop;
    if (end > start && bytes[end - 1] === CARRIAGE_RETURN) end--;
    if (end === start) return false;
    let blank = true;
    for (let i = start; i < end; i++) {
      const byte = bytes[i];
      if (byte !== 0x20 && byte !== 0x09) {
        blank = false;
        break;
      }
    }
    if (blank) return false;
    this.handedOver++;
    let text: string;
    try {
      text = utf8.decode(bytes.subarray(start, end));
    } catch {
      this.onFrame(new InvalidUtf8Frame(bytes.toString("utf8", start, end)));
      return true;
    }
    this.onFrame(text);
    return true;
  }
}

/** The error of a frame that is not valid UTF-8: `-32700`, as for bytes that are not JSON. */
export function invalidUtf8Error(): JsonRpcError {
  return new JsonRpcError(ErrorCode.ParseError, "Parse error: invalid UTF-8");
}

/** Decodes one frame; throws the codec's `JsonRpcError` (-32700, -32600) for anything but a JSON-RPC message. */
export function decodeFrame(frame: string): JsonRpcMessage {
  return decodeMessage(frame);
}

/** A decoded frame: the message, or the error to answer with and the request's id when it could be read. */
export type FrameDecoding =
  | { readonly ok: true; readonly message: JsonRpcMessage }
  | { readonly ok: false; readonly error: JsonRpcError; readonly id: RequestId | undefined };

/**
 * Decodes one inbound frame for a server: bad JSON is `-32700`; JSON that is not a JSON-RPC message is `-32600`,
 * with the id of a request whose id could be read (so that its sender is not left waiting for its deadline).
 */
export function decodeRequestFrame(frame: string): FrameDecoding {
  let value: unknown;
  try {
    value = JSON.parse(frame);
  } catch {
    return { ok: false, error: new JsonRpcError(ErrorCode.ParseError, "Parse error"), id: undefined };
  }
  try {
    return { ok: true, message: parseMessage(value) };
  } catch (error) {
    const refused =
      error instanceof JsonRpcError ? error : new JsonRpcError(ErrorCode.InvalidRequest, "Invalid Request");
    return { ok: false, error: refused, id: requestIdOf(value) };
  }
}

/** Encodes one message as a frame (`\n` included); throws `MESSAGE_TOO_LARGE` over `maxBytes`, before any write. */
export function encodeFrame(message: JsonRpcMessage, maxBytes: number): string {
  try {
    return `${encodeMessage(message, maxBytes)}\n`;
  } catch (error) {
    if (error instanceof McpkitError && error.code === "MESSAGE_TOO_LARGE") {
      throw tooLarge("maxOutboundFrameBytes", maxBytes, Number(error.details?.size), false);
    }
    throw error;
  }
}

/**
 * The transport-level error for a decoder failure while reading `stream` ("stdout", "input"): a limit crossed
 * keeps `MESSAGE_TOO_LARGE` with the policy key in `details.option`, its value and the size seen; anything else
 * is a `TRANSPORT` failure.
 */
export function inboundLimitError(error: unknown, stream: { frame: string; pending: string }): McpkitError {
  if (!(error instanceof McpkitError) || error.code !== "MESSAGE_TOO_LARGE") {
    return new McpkitError("TRANSPORT", `could not read ${stream.pending}`, { cause: error });
  }
  const option =
    error.details?.option === "maxPendingStdoutBytes" ? "maxPendingStdoutBytes" : "maxFrameBytes";
  const what = option === "maxFrameBytes" ? stream.frame : `${stream.pending} waiting for a newline`;
  const facts = { option, limit: Number(error.details?.limit), size: Number(error.details?.size) };
  return limitError("MESSAGE_TOO_LARGE", what, facts, {
    atLeast: error.details?.atLeast === true,
    cause: error,
  });
}

function tooLarge(option: string, limit: number, size: number, atLeast: boolean): McpkitError {
  return limitError(
    "MESSAGE_TOO_LARGE",
    "frame",
    { option, limit, size },
    { atLeast, extra: atLeast ? { atLeast } : {} },
  );
}
