// The vocabulary of the demo generators (lib/datasets/<dataset>/seed.ts): skewed picks from small
// lists, clamped times, time-ordered ids. Values are drawn from small skewed vocabularies so the
// dashboards show realistic top-10s and a long tail.

export const lit = (v: string | number | null) => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`)
/** One element of `values` per row; skew > 1 favours the first ones. `r` is a random() column. */
export const pick = (values: Array<string | number | null>, r: string, skew = 1.6) =>
  `(ARRAY[${values.map(lit).join(',')}])[1 + floor(power(${r}, ${skew}) * ${values.length})::int]`

export const USERS = [
  'ana@example.com',
  'ben@example.com',
  'chloe@example.com',
  'dev@example.com',
  'eli@example.com',
  'fatima@example.com',
  'gus@example.com',
  'hana@example.com',
  'ivan@example.com',
  'jo@example.com',
  'kim@example.com',
  'lea@example.com',
]
export const userField = (field: 'email' | 'user_id' | 'device', u: string) => {
  const values = USERS.map((e, i) =>
    field === 'email'
      ? e
      : field === 'user_id'
        ? `0c2d${String(i).padStart(4, '0')}-7a1e-4b8c-9f00-${String(1e11 + i * 7919)}`
        : `${e.split('@')[0]}-${i % 3 === 0 ? 'macbook' : i % 3 === 1 ? 'thinkpad' : 'pixel'}`,
  )
  return `(ARRAY[${values.map(lit).join(',')}])[1 + ${u}]`
}
export const DOMAINS = [
  'www.google.com',
  'api.github.com',
  'outlook.office365.com',
  'slack.com',
  'zoom.us',
  'www.youtube.com',
  'login.microsoftonline.com',
  'cdn.jsdelivr.net',
  'registry.npmjs.org',
  'www.reddit.com',
  'docs.example.com',
  'tracker.adnetwork.test',
  'malware.bad.test',
  'files.dropbox.com',
  'www.wikipedia.org',
]
export const CATEGORIES = ['Technology', 'Business', 'Productivity', 'Social Networks', 'Streaming Video', 'Advertisements', 'Malware', 'Education', 'News']
export const APPS = ['Google Workspace', 'GitHub', 'Microsoft 365', 'Slack', 'Zoom', 'YouTube', null, 'Dropbox']
export const COLOS = ['CDG', 'AMS', 'FRA', 'LHR', 'IAD', 'SFO', 'NRT', 'GRU']
export const LOCATIONS = ['HQ Paris', 'Remote', 'Branch Lyon', 'Branch Berlin']
export const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'NL', 'JP', 'BR', 'IN', 'CA', 'AU', null]

/** Where the rows of one statement go, and when "now" is (one instant for the whole seed). */
export interface Target {
  /** The table inserted into. */
  table: string
  /** Identity sequence of the dataset's table: set when `table` is a plain table being filled before ATTACH. */
  idSequence: string | null
  now: string
  /** Times are clamped into [from, to), the day being built. */
  from: string
  to: string
}

export const since = (target: Target, days: number, r: string) =>
  `greatest('${target.from}'::timestamptz, least('${target.to}'::timestamptz - interval '1 microsecond', '${target.now}'::timestamptz - ${r} * interval '${days} days'))`
/** A version 7 UUID (time-ordered, as request ids increasingly are) for the time column `t`. */
export const timeOrderedUuid = (t: string) => {
  const ms = `lpad(to_hex(floor(extract(epoch FROM ${t}) * 1000)::bigint), 12, '0')`
  const rand = `md5(random()::text)`
  return `(SELECT substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-7' || substr(r, 1, 3) || '-' || substr('89ab', 1 + floor(random() * 4)::int, 1) || substr(r, 4, 3) || '-' || substr(r, 7, 12) FROM (SELECT ${ms} AS h, ${rand} AS r) AS v)`
}

/** What a dataset's generator gets: where its rows go, the days they spread over, and `rows`, the
 * numbered source rows (g, r0 falling from 1 to 0 over the whole seed, r1…r5 random, u a user). */
export interface SeedContext {
  target: Target
  days: number
  rows: string
}

export function seedRowsSource(n: number, done: number, total: number): string {
  return `(SELECT g, 1 - (${done} + g - random()) / ${total} AS r0, random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, floor(power(random(), 1.4) * ${USERS.length})::int AS u FROM generate_series(1, ${n}) AS g) s`
}
