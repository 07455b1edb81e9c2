import 'server-only'
import { z } from 'zod'
import { config } from '@/lib/config'
import { AppError } from '@/lib/errors'
import { cached, cachedMany } from '@/lib/upstream/cache'
import { parseUpstreamJson, upstreamFetch, type UpstreamResponse } from '@/lib/upstream/http'
import { createRateBudget, UpstreamRateLimited, type RateBudget } from '@/lib/upstream/rate-budget'
import { IpApiAnswer, type IpApiSuccess, type IpMetadata } from '@/lib/ipcheck/schemas'
import { processSlot } from '@/lib/process-slot'

// ip-api.com adapter. The free endpoint is plain HTTP and limited per source address (45 single
// and 15 batch requests a minute, reported in X-Rl / X-Ttl); going over earns 429s and then a ban,
// so calls are budgeted here and answers cached per address. IP_API_KEY switches to the pro
// endpoint (HTTPS, no per-minute limit).

const UPSTREAM = 'ip-api.com'

/** Exactly what our metadata needs, asked for by name (offset → utcOffset; reverse is the PTR fallback). */
export const IP_API_FIELDS =
  'status,message,query,country,countryCode,region,regionName,city,zip,lat,lon,timezone,offset,isp,org,as,reverse,mobile,proxy,hosting'

// One budget per endpoint (ip-api counts single and batch requests separately), kept across module
// reloads of the same process.
const budgets = processSlot<{ single: RateBudget; batch: RateBudget }>('ip-api-budgets').getOrCreate(() => ({
  single: createRateBudget(UPSTREAM, { limit: 45, windowS: 60 }),
  batch: createRateBudget(`${UPSTREAM} batch`, { limit: 15, windowS: 60 }),
}))

/** The free base from IP_API_URL; with a key, the pro host (or IP_API_URL itself when it points elsewhere, e.g. a test server). */
export function ipApiEndpoint(c: Pick<typeof config, 'IP_API_URL' | 'IP_API_KEY'> = config): { base: string; key?: string } {
  const base = c.IP_API_URL.replace(/\/+$/, '')
  if (!c.IP_API_KEY) return { base }
  const isPublicHost = new URL(base).hostname === 'ip-api.com'
  return { base: isPublicHost ? 'https://pro.ip-api.com' : base, key: c.IP_API_KEY }
}

function url(path: string): string {
  const { base, key } = ipApiEndpoint()
  const params = new URLSearchParams({ fields: IP_API_FIELDS })
  if (key) params.set('key', key)
  return `${base}${path}?${params}`
}

const headerNumber = (res: UpstreamResponse, name: string) => {
  const raw = res.headers.get(name)
  return raw === null || raw.trim() === '' ? NaN : Number(raw)
}

/** Sends one budgeted request and applies ip-api's rate headers and refusals. */
async function send(budget: RateBudget, path: string, init: { method: 'GET' | 'POST'; body?: string }): Promise<UpstreamResponse> {
  const free = !ipApiEndpoint().key
  if (free) budget.take()
  const res = await upstreamFetch(UPSTREAM, url(path), {
    ...init,
    headers: { accept: 'application/json', ...(init.body ? { 'content-type': 'application/json' } : {}) },
    // 403 carries a JSON reason (no HTTPS on the free tier, bad key); 429 is handled below.
    acceptStatus: [403, 429],
  })
  const left = headerNumber(res, 'x-rl')
  const ttl = headerNumber(res, 'x-ttl')
  if (free) budget.observe(left, ttl)
  if (res.status === 429) {
    const wait = Number.isFinite(ttl) && ttl > 0 ? ttl : 60
    budget.exhaust(wait)
    throw new UpstreamRateLimited(UPSTREAM, wait)
  }
  if (res.status === 403) {
    const reason = z.object({ message: z.string() }).safeParse(parseUpstreamJson(UPSTREAM, res.text()))
    throw new AppError('upstream_failed', `${UPSTREAM} refused the request${reason.success ? `: ${reason.data.message}` : ''}.`, { upstream: UPSTREAM })
  }
  return res
}

async function fetchOne(address: string): Promise<IpApiAnswer> {
  const res = await send(budgets.single, `/json/${encodeURIComponent(address)}`, { method: 'GET' })
  return parseUpstreamJson(UPSTREAM, res.text(), IpApiAnswer)
}

async function fetchBatch(addresses: string[]): Promise<Map<string, IpApiAnswer>> {
  const res = await send(budgets.batch, '/batch', { method: 'POST', body: JSON.stringify(addresses) })
  const answers = parseUpstreamJson(UPSTREAM, res.text(), z.array(IpApiAnswer).length(addresses.length))
  // Results come back in request order; ip-api may rewrite `query`, so match by position.
  return new Map(addresses.map((a, i) => [a, answers[i]]))
}

const cacheKey = (address: string) => `ipapi:${address}`
const cacheOptions = () => ({ ttlS: config.IP_API_CACHE_TTL_S })

/** ip-api's answer for one address (cached per address; ip-api's own "fail" answers included). */
export function lookupIpApi(address: string): Promise<IpApiAnswer> {
  return cached(cacheKey(address), cacheOptions(), () => fetchOne(address))
}

/** Answers for up to 100 addresses: cached ones from the cache, the rest in one batch call. */
export function lookupIpApiMany(addresses: string[]): Promise<Map<string, IpApiAnswer>> {
  return cachedMany(addresses, cacheKey, cacheOptions(), fetchBatch)
}

/** ip-api's record → our metadata (field names stop here). `reverse` is filled by the service. */
export function reshapeIpApi(answer: IpApiSuccess): Omit<IpMetadata, 'reverse'> {
  return {
    status: answer.status,
    country: answer.country,
    countryCode: answer.countryCode,
    region: answer.region,
    regionName: answer.regionName,
    city: answer.city,
    zip: answer.zip,
    lat: answer.lat,
    lon: answer.lon,
    timezone: answer.timezone,
    utcOffset: answer.offset,
    isp: answer.isp,
    org: answer.org,
    as: answer.as,
    mobile: answer.mobile,
    proxy: answer.proxy,
    hosting: answer.hosting,
  }
}

/** ip-api's own PTR name, used only when our DNS lookup fails; it sends "" for none. */
export const ipApiReverse = (answer: IpApiSuccess): string | null => answer.reverse || null

/** Test hook: the budgets' current state. */
export const ipApiBudgets = () => ({ single: budgets.single.state(), batch: budgets.batch.state() })
