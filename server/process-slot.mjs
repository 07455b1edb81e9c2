// The key of a process-wide slot, spelled as lib/process-slot.ts spells it: server.mjs and
// server/drain.mjs run outside the bundles and share these slots with the application.

/** @param {string} name */
export const processSlotKey = (name) => Symbol.for(`utility-api.${name}`)
