/**
 * The byte bound every default of the HTTP path is built around: the largest request body a default HTTP server
 * accepts and the largest response it sends (the seed's `max_response_length`), which a default HTTP client reads
 * in full. MCP App views and skill files up to it (less their envelope) go through with no option set.
 */
export const HTTP_MESSAGE_BYTES = 8_000_000;

/**
 * Room kept for the JSON-RPC envelope of one resource's content (`jsonrpc`, `id`, `result`, `contents`, `uri`,
 * `mimeType`, `_meta`) when a body must fit in {@link HTTP_MESSAGE_BYTES}.
 */
export const ENVELOPE_BYTES = 64 * 1024;
