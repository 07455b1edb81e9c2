// Request body limits, in bytes. Only constants: next.config.ts reads them too.

/** Bodies of operations that take JSON: the batch operations need a few tens of KiB. */
export const JSON_BODY_MAX_BYTES = 256 * 1024
/** Operations without a body still tolerate a small one (ignored). */
export const NO_BODY_MAX_BYTES = 16 * 1024
/** A JSON-RPC message or batch to the tool server. */
export const MCP_BODY_MAX_BYTES = 1024 * 1024
/** A Logpush batch as sent (gzip'd or not): the largest body of any route. */
export const INGEST_BODY_MAX_BYTES = 32 * 1024 * 1024
