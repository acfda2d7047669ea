import { utf8Length } from "../../jsonrpc/codec.js";
import type { JsonRpcNotification, JsonRpcRequest } from "../../jsonrpc/message.js";
import type { NotificationSink } from "./context.js";
import type { ServerLogger } from "./options.js";

/** The caps of the notifications one request may send while it is served. */
export interface NotificationCaps {
  /** Notifications (progress, log messages) one request may send. */
  readonly maxNotificationsPerRequest: number;
  /** Bytes of their JSON encoding, summed over the request. */
  readonly maxNotificationBytes: number;
}

const DROPPED: Promise<void> = Promise.resolve();

/**
 * The sink of one request's notifications, held to `caps`: each notification is counted, and its JSON encoding
 * measured, before it goes to `sink`. The first one that would pass either cap is dropped, and so is every one
 * after it: nothing is queued, the handler is not failed (its `progress()` or `log()` resolves), and the drop is
 * logged once for the request, as a warning naming the cap. A notification JSON cannot encode is handed on
 * uncounted: the transport refuses and reports it as it does any other.
 */
export function limitNotifications(
  sink: NotificationSink,
  caps: NotificationCaps,
  logger: ServerLogger,
  request: JsonRpcRequest,
): NotificationSink {
  let count = 0;
  let bytes = 0;
  let dropping = false;
  return (notification: JsonRpcNotification): Promise<void> => {
    if (dropping) return DROPPED;
    let size: number;
    try {
      size = utf8Length(JSON.stringify(notification));
    } catch {
      return sink(notification);
    }
    const cap =
      count >= caps.maxNotificationsPerRequest
        ? "maxNotificationsPerRequest"
        : bytes + size > caps.maxNotificationBytes
          ? "maxNotificationBytes"
          : undefined;
    if (cap !== undefined) {
      dropping = true;
      logger.warn(`dropped the notifications of a request past ${cap}`, {
        id: request.id,
        method: request.method,
        limit: caps[cap],
        sent: count,
        sentBytes: bytes,
      });
      return DROPPED;
    }
    count++;
    bytes += size;
    return sink(notification);
  };
}
