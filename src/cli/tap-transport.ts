import type { JsonRpcMessage } from "../jsonrpc/message.js";
import type { Transport, TransportCloseReason } from "../transports/transport.js";

/** What a tap hears; each runs before the message or close goes on. */
export interface TransportTaps {
  /** A message received. */
  received?: (message: JsonRpcMessage) => void;
  /** A message about to be sent. */
  sent?: (message: JsonRpcMessage) => void;
  /** How the transport ended (the client itself has no close event). */
  closed?: (reason: TransportCloseReason) => void;
}

/**
 * Wraps a transport so that `taps` hear its traffic and its end. The wrapper forwards everything else, the
 * transport's flags included; a tap not given adds nothing to that path.
 */
export function tapTransport(transport: Transport, taps: TransportTaps): Transport {
  const { received, sent, closed } = taps;
  return {
    get cancelsByStream() {
      return transport.cancelsByStream;
    },
    get fallsBackOnProbeTimeout() {
      return transport.fallsBackOnProbeTimeout;
    },
    start: (handlers) =>
      transport.start({
        ...handlers,
        ...(received === undefined
          ? {}
          : {
              message: (message, info) => {
                received(message);
                handlers.message(message, info);
              },
            }),
        close: (reason) => {
          closed?.(reason);
          handlers.close(reason);
        },
      }),
    send:
      sent === undefined
        ? (message, options) => transport.send(message, options)
        : (message, options) => {
            sent(message);
            return transport.send(message, options);
          },
    close: () => transport.close(),
  } as Transport;
}
