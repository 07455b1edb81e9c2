// Shared by the request schema and the filter checker (kept apart so schemas stay free of WASM).
export const MAX_FILTER_LENGTH = 4000

// The amplification budget (lib/query/filter-budget.ts): what one column value is assumed to hold
// at most, what one expression may make of it, and how deep functions that lengthen values may nest.
export const ASSUMED_VALUE_BYTES = 8 * 1024
export const MAX_VALUE_BYTES = 1024 * 1024
export const MAX_GROWTH_NESTING = 3
