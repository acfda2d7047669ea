import type { Transport, TransportCloseReason } from "../transports/transport.js";

/**
 * Wraps a transport so that `onClose` hears how it ended (the client itself has no close event). The wrapper
 * forwards everything else, the transport's flags included.
 */
export function watchClose(transport: Transport, onClose: (reason: TransportCloseReason) => void): Transport {
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
        close: (reason) => {
          onClose(reason);
          handlers.close(reason);
        },
      }),
    send: (message, options) => transport.send(message, options),
    close: () => transport.close(),
  } as Transport;
}
