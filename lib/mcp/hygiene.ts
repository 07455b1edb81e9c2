// Text from upstreams (DNS TXT records, DMARC strings, PDS handles, blog posts, …) reaches a model
// through a tool's result. Invisible and bidirectional control characters in it can hide or reorder
// what a person reviewing the result sees (Trojan Source, CVE-2021-42574) or smuggle instructions
// no one can read (Unicode tag characters). Every tool result passes through `stripInvisible` in
// callTool (lib/mcp/tool.ts) before it is answered.

// Unicode general category Cf (format): the bidi embeddings and overrides U+202A–U+202E, the
// isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C, the zero-width U+200B–U+200D, U+2060
// and U+FEFF, the soft hyphen, the tag characters U+E0000–U+E007F, and the rest of the category.
const INVISIBLE = /\p{Cf}/gu

const clean = (s: string) => s.replace(INVISIBLE, '')

/** `value` with every string (object keys included) stripped of invisible and bidi control characters. */
export function stripInvisible<T>(value: T): T {
  if (typeof value === 'string') return clean(value) as T
  if (Array.isArray(value)) return value.map(stripInvisible) as T
  if (value && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value)))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [clean(k), stripInvisible(v)])) as T
  return value
}
