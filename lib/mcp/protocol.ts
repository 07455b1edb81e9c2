// The protocol revision of the per-request (stateless) era, served by lib/mcp/modern.ts.
export const MODERN_PROTOCOL_VERSION = '2026-07-28'
