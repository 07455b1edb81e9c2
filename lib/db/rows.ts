// Reading what `execute()` answers. Every driver (node-postgres, Neon, PGlite) returns an object
// with `rows`, but Db is typed over all of them, so the result is not typed: the one cast is here.
// Timestamps come back as Date from some drivers and as Postgres text from others (a timestamptz
// cast to text, or a raw row of PGlite): parseTimestamp reads both.

/** A row of a statement's result, by column name. */
export type ResultRow = Record<string, unknown>

/** The rows of an `execute()` result, typed as the statement's columns. */
export function rowsOf<T = ResultRow>(result: unknown): T[] {
  return (result as { rows: T[] }).rows
}

/**
 * A Date, or Postgres timestamptz text ('2026-11-21 13:00:00.5+00', offsets of whole hours), as a
 * Date. Anything else gives an invalid Date (its time is NaN).
 */
export function parseTimestamp(v: unknown): Date {
  if (v instanceof Date) return v
  return new Date(
    String(v)
      .replace(' ', 'T')
      .replace(/([+-]\d\d)$/, '$1:00'),
  )
}
