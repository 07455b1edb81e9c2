import 'server-only'
import { isIP } from 'node:net'
import { config } from '@/lib/config'
import { resolveAddresses, resolvePtr } from '@/lib/dns/resolver'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { support } from '@/lib/support'
import { parseAddress } from '@/lib/ipcheck/address'
import type { IpApiAnswer, IpCheckBatchBody, IpCheckBatchResult, IpCheckQuery, IpCheckResult, IpLookup, MapsUrl } from '@/lib/ipcheck/schemas'
import { ipApiReverse, lookupIpApi, lookupIpApiMany, reshapeIpApi } from '@/lib/ipcheck/upstream'

export interface IpCheckDeps {
  lookup: (address: string) => Promise<IpApiAnswer>
  lookupMany: (addresses: string[]) => Promise<Map<string, IpApiAnswer>>
  resolvePtr: (address: string) => Promise<string[]>
  resolveAddresses: (host: string) => Promise<string[]>
  homeHostname: string | undefined
}

export const defaultIpCheckDeps = (): IpCheckDeps => ({
  lookup: lookupIpApi,
  lookupMany: lookupIpApiMany,
  resolvePtr,
  resolveAddresses,
  homeHostname: config.HOME_DDNS_HOSTNAME,
})

const UPSTREAM_NAME = 'ip-api.com'
const LOC_DISCLAIMER =
  "Locations come from IP geolocation data (ip-api.com) and are approximate: usually the network operator's point of presence or a city centroid, never a street address. Proxy, VPN and mobile addresses may be far from the person using them."

const contacts = () => [config.SUPPORT_EMAIL]

/** Links to three map services, or all null when the upstream gave no usable position. */
export function mapLinks(lat: number, lon: number): MapsUrl {
  // 0,0 ("null island") is what geolocation data carries for "position unknown".
  if (!Number.isFinite(lat) || !Number.isFinite(lon) || (lat === 0 && lon === 0)) return { map_a: null, map_b: null, map_c: null }
  return {
    map_a: `https://www.google.com/maps/search/?api=1&query=${lat}%2C${lon}`,
    map_b: `https://www.openstreetmap.org/?mlat=${lat}&mlon=${lon}#map=12/${lat}/${lon}`,
    map_c: `https://www.bing.com/maps?cp=${lat}~${lon}&lvl=12`,
  }
}

/** The address a query asks about: `ip`, the caller's own (`me`, the default) or the operator's home host. */
export async function resolveTarget(query: IpCheckQuery, clientIp: string, deps: Pick<IpCheckDeps, 'resolveAddresses' | 'homeHostname'>): Promise<string> {
  if (query.ip !== undefined && query.location !== undefined) throw new AppError('invalid_input', 'Give either ip or location, not both.')
  if (query.ip !== undefined) return query.ip
  if (query.location === 'home') {
    if (!deps.homeHostname) throw new AppError('not_found', 'The home location is not configured on this server.')
    const addresses = await deps.resolveAddresses(deps.homeHostname)
    const chosen = addresses.find((a) => isIP(a) === 4) ?? addresses[0]
    if (!chosen) throw new AppError('not_found', 'The home location could not be resolved: its DNS name has no address.')
    return chosen
  }
  if (!isIP(clientIp)) throw new AppError('not_found', 'Your own address could not be determined, so location=me cannot be answered; pass ip instead.')
  return clientIp
}

/** ip-api's "fail" answers: bad input is the caller's (400), anything else is an upstream failure. */
function failureOf(answer: Extract<IpApiAnswer, { status: 'fail' }>, address: string): AppError {
  const m = answer.message
  if (m === 'private range' || m === 'reserved range' || m === 'invalid query')
    return new AppError('invalid_input', `${address}: ip-api.com has no data for it (${m}).`)
  return new AppError('upstream_failed', `ip-api.com could not look up ${address} (${m}).`, { upstream: 'ip-api.com' })
}

async function reverseOf(address: string, fallback: string | null, deps: IpCheckDeps): Promise<string | null> {
  try {
    return (await deps.resolvePtr(address))[0] ?? null
  } catch (error) {
    // A DNS failure should not sink the whole lookup; ip-api's own PTR answer stands in.
    log.warn("PTR lookup failed; using the geolocation provider's reverse name", { error: error instanceof Error ? error.message : String(error) })
    return fallback
  }
}

async function toLookup(address: string, version: 4 | 6, answer: IpApiAnswer, reverseCheck: boolean, deps: IpCheckDeps): Promise<IpLookup> {
  if (answer.status === 'fail') throw failureOf(answer, address)
  const reverse = reverseCheck ? await reverseOf(address, ipApiReverse(answer), deps) : null
  return {
    result: address,
    ipVersion: version,
    mapsUrl: mapLinks(answer.lat, answer.lon),
    metadata: { ...reshapeIpApi(answer), reverse },
  }
}

// GET /api/ipcheck - one address
export async function checkIp(query: IpCheckQuery, clientIp: string, deps: IpCheckDeps = defaultIpCheckDeps()): Promise<IpCheckResult> {
  const target = await resolveTarget(query, clientIp, deps)
  const parsed = parseAddress(target)
  if (!parsed.ok) throw new AppError('invalid_input', parsed.reason)
  const answer = await deps.lookup(parsed.address)
  const lookup = await toLookup(parsed.address, parsed.version, answer, query.reverseCheck ?? false, deps)
  return { ...lookup, contacts: contacts(), loc_disclaimer: LOC_DISCLAIMER, support: support() }
}

/** Runs `fn` over `items` with at most `limit` at a time, keeping order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i], i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

// POST /api/ipcheck - up to 100 addresses, each answered on its own
export async function checkIps(body: IpCheckBatchBody, deps: IpCheckDeps = defaultIpCheckDeps()): Promise<IpCheckBatchResult> {
  const parsed = body.ips.map((ip) => parseAddress(ip))
  const addresses = [...new Set(parsed.flatMap((p) => (p.ok ? [p.address] : [])))]
  let answers = new Map<string, IpApiAnswer>()
  let batchError: unknown
  if (addresses.length > 0) {
    try {
      answers = await deps.lookupMany(addresses)
    } catch (error) {
      if (!(error instanceof AppError)) throw error
      batchError = error
    }
  }
  const results = await mapLimit(body.ips, 8, async (query, i) => {
    const p = parsed[i]
    if (!p.ok) return { query, lookup: null, error: p.reason }
    const answer = answers.get(p.address)
    if (!answer) {
      return { query, lookup: null, error: batchError instanceof AppError ? batchError.message : `${UPSTREAM_NAME} sent no answer for this address.` }
    }
    try {
      return { query, lookup: await toLookup(p.address, p.version, answer, body.reverseCheck ?? false, deps), error: null }
    } catch (error) {
      if (error instanceof AppError) return { query, lookup: null, error: error.message }
      throw error
    }
  })
  return { results, contacts: contacts(), loc_disclaimer: LOC_DISCLAIMER, support: support() }
}
