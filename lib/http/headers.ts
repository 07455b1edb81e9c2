// Header names the application reads or writes, in one leaf module so that a domain, the proxy
// and a test can name a header without importing the handler that uses it.

/** Echoed on every answer; taken from the request when a trusted edge set it. */
export const REQUEST_ID_HEADER = 'x-request-id'
/** The client address the trusted edge resolved (see lib/http/client-ip.ts). */
export const CLIENT_IP_HEADER = 'x-tc-client-ip'
/** The TCP peer address, set by server.mjs; never taken from the request. */
export const CONNECTION_IP_HEADER = 'x-tc-connection-ip'
/** The key internal operations require. */
export const INTERNAL_KEY_HEADER = 'x-tc-api-key'
/** The identity-aware proxy's signed assertion. */
export const TOKEN_HEADER = 'cf-access-jwt-assertion'
/** Marks a request the proxy relayed after checking access. */
export const RELAYED_HEADER = 'x-tc-relayed'
/** The query application's home path when it is served on its own host. */
export const QUERY_HOME_HEADER = 'x-tc-query-home'
/** Logpush's shared secret on the ingest route. */
export const LOGPUSH_SECRET_HEADER = 'x-logpush-secret'
