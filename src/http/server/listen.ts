import { ErrorCode } from "../../jsonrpc/codes.js";
import { JsonRpcError, McpkitError } from "../../jsonrpc/errors.js";
import type { JsonRpcRequest } from "../../jsonrpc/message.js";
import type { RequestMeta } from "../../protocol/request-meta.js";
import { MODERN_VERSION } from "../../protocol/versions.js";
import {
  errorResponse,
  SUBSCRIPTION_CAPACITY_MESSAGE,
  type Subscription,
  type SubscriptionChannel,
} from "../../server/port.js";
import type { Answer } from "./answer.js";
import type { Endpoint } from "./endpoint.js";
import { modernStatus, refusal } from "./responses.js";
import { SSE_HEADERS, SseStream } from "./sse.js";
import type { RequestView } from "./view.js";

/**
 * A 2026-07-28 `subscriptions/listen` over HTTP: the answer is a long-lived SSE stream whose first event is the
 * acknowledgement, then the notifications the subscription takes, each stamped with the listen id, with a
 * keepalive comment every `keepAliveMs`. The client ends it by closing the stream (nothing more is sent); the
 * server ends it gracefully with the `complete` result, then closes the stream; an overflow (the client reads
 * too slowly) closes the stream without a result. Always SSE, even with `enableJsonResponse`: a request whose
 * `Accept` rules SSE out is refused (406). A malformed filter is 400 `-32602`; a full server 503 `-32603`; an
 * error of the handler's `subscriptionFilter` hook has the status of any other answer with that error.
 */
export async function listenStream(
  endpoint: Endpoint,
  request: RequestView,
  message: JsonRpcRequest,
  identity: unknown,
  meta: RequestMeta,
): Promise<Answer> {
  if (!endpoint.accepts(request).sse) {
    throw refusal(
      406,
      ErrorCode.InvalidRequest,
      "Not Acceptable: subscriptions/listen answers with text/event-stream",
    );
  }
  const { config, logger } = endpoint;
  let subscription: Subscription | undefined;
  const stream = new SseStream({
    keepAliveMs: config.keepAliveMs,
    clock: config.clock,
    onCancel: () => subscription?.cancel(),
  });
  const channel: SubscriptionChannel = {
    async write(outbound) {
      const json = JSON.stringify(outbound);
      // The stream is open-ended: the byte limit applies to each event, as on a legacy GET stream.
      if (SseStream.eventSize(json) > config.maxResponseBytes) {
        logger.warn("dropped a subscription message past maxResponseBytes", { id: message.id });
        return;
      }
      if (!stream.event(json)) throw new McpkitError("CLOSED", "the listen stream is closed");
      await stream.drained();
    },
    end: () => stream.close(),
  };
  // The client may leave while the subscriptionFilter hook runs: its signal fires, and the subscription, once
  // open, ends at once.
  const gone = new AbortController();
  request.onGone(() => {
    gone.abort();
    subscription?.cancel();
  });
  let opened: Subscription;
  try {
    opened = await endpoint.server.listen(message, channel, { identity, signal: gone.signal }, meta);
  } catch (error) {
    stream.close();
    const response = errorResponse(message.id, error, MODERN_VERSION, logger);
    const { code, message: text, data } = response.error;
    const full = error instanceof JsonRpcError && text.startsWith(SUBSCRIPTION_CAPACITY_MESSAGE);
    throw refusal(full ? 503 : modernStatus(response), code, text, data);
  }
  subscription = opened;
  if (gone.signal.aborted) opened.cancel();
  endpoint.subscriptions.add(opened);
  void opened.ended.then(() => endpoint.subscriptions.delete(opened));
  return { status: 200, headers: { ...SSE_HEADERS }, body: stream.body };
}
