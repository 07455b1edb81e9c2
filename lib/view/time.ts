// Times in the query application: one format everywhere, `2026-11-21 13:05:00 UTC`, or the same
// wall-clock shape in a chosen IANA time zone (`2026-11-21 14:05:00 UTC+01:00`). The zone lives in
// the page URL (`tz=Europe/Berlin`), so the server renders local times and a shared link shows the
// times its author saw. Typed bounds without an offset are read in that zone. Pure: also used in
// the browser (the chart's axis labels, the range fields).

export const UTC = 'UTC'

const formatters = new Map<string, Intl.DateTimeFormat>()

function partsFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(zone, f)
  }
  return f
}

/** True for a zone name the runtime knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(zone: string): boolean {
  if (!zone || zone.length > 64) return false
  try {
    partsFormatter(zone)
    return true
  } catch {
    return false
  }
}

interface WallTime {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
}

function wallTime(ms: number, zone: string): WallTime {
  const p = Object.fromEntries(
    partsFormatter(zone)
      .formatToParts(new Date(ms))
      .map((x) => [x.type, x.value]),
  )
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second) }
}

/** Offset of `zone` from UTC at instant `ms`, in minutes (Berlin in winter: 60). */
export function zoneOffsetMinutes(ms: number, zone: string): number {
  if (zone === UTC) return 0
  const w = wallTime(ms, zone)
  const asUtc = Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second)
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000)
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0')

/** `+01:00` for 60 minutes. */
function offsetText(minutes: number): string {
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`
}

/** `2026-11-21 13:05:00` in `zone`. */
export function formatWallTime(ms: number, zone = UTC): string {
  const w = zone === UTC ? utcWallTime(ms) : wallTime(ms, zone)
  return `${w.year}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`
}

function utcWallTime(ms: number): WallTime {
  const d = new Date(ms)
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
  }
}

/** `UTC`, or `UTC+01:00` for the zone's offset at that instant. */
export function zoneSuffix(ms: number, zone = UTC): string {
  return zone === UTC ? 'UTC' : `UTC${offsetText(zoneOffsetMinutes(ms, zone))}`
}

/** The one display format: `2026-11-21 13:05:00 UTC`. Anything that is not a time is returned as is. */
export function formatTime(value: string | number | Date, zone = UTC): string {
  const ms = value instanceof Date ? value.getTime() : typeof value === 'number' ? value : Date.parse(value)
  if (Number.isNaN(ms)) return String(value)
  return `${formatWallTime(ms, zone)} ${zoneSuffix(ms, zone)}`
}

// What people type or paste into From/To: a date, or a date and time with `T` or a space, seconds
// optional, then optionally `Z`, ` UTC`, ` UTC+01:00` or an offset such as `+01:00`.
const TYPED = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|UTC|GMT|(?:UTC|GMT)?\s*([+-])(\d{2}):?(\d{2}))?$/i

export interface TypedTime {
  /** The instant, as ISO 8601 UTC. */
  iso: string
  /** True when only a date was typed (as an end bound it means the end of that day). */
  dateOnly: boolean
}

/** Reads a typed bound in `zone` (unless it names its own offset); null when it is not a time. */
export function parseTypedTime(text: string, zone = UTC): TypedTime | null {
  const m = TYPED.exec(text.trim())
  if (!m) return null
  const [, y, mo, d, h = '00', mi = '00', s = '00', frac = '', suffix, sign, oh, om] = m
  const fields = [Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), Number(frac.padEnd(3, '0').slice(0, 3))] as const
  const wall = Date.UTC(...fields)
  const check = new Date(wall)
  // Date.UTC rolls 2026-02-31 over into March: such a date was not a real one.
  if (check.getUTCMonth() !== fields[1] || check.getUTCDate() !== fields[2] || fields[3] > 23 || fields[4] > 59 || fields[5] > 59) return null
  let ms: number
  if (sign) ms = wall - (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000
  else if (suffix) ms = wall
  else ms = wallToInstant(wall, zone)
  return { iso: new Date(ms).toISOString(), dateOnly: m[4] === undefined }
}

/** The instant whose wall-clock time in `zone` is `wall` (ms of that wall time read as UTC). */
export function wallToInstant(wall: number, zone: string): number {
  if (zone === UTC) return wall
  // Two passes settle the offset on either side of a daylight-saving change.
  const first = wall - zoneOffsetMinutes(wall, zone) * 60_000
  return wall - zoneOffsetMinutes(first, zone) * 60_000
}

/** Midnight (in `zone`) that starts the day containing instant `ms`, `days` days later. */
export function startOfDay(ms: number, zone: string, days = 0): number {
  const w = zone === UTC ? utcWallTime(ms) : wallTime(ms, zone)
  return wallToInstant(Date.UTC(w.year, w.month - 1, w.day + days), zone)
}
