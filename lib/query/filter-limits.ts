// Shared by the request schema and the filter checker (kept apart so schemas stay free of WASM).
export const MAX_FILTER_LENGTH = 4000
