import { z } from 'zod'
import { queryBoolean } from '@/lib/http/query'
import { Support } from '@/lib/support'

// ---- Inputs ------------------------------------------------------------------------------------

export const IpLocation = z.enum(['me', 'home']).meta({
  description: "`me`: the address this request came from. `home`: the operator's dynamic-DNS host name, resolved through DNS.",
})

export const IpCheckQuery = z.object({
  ip: z
    .string()
    .max(100)
    .optional()
    .meta({
      description:
        'IPv4 or IPv6 address in standard notation (IPv4-mapped IPv6 is read as IPv4). Legacy forms such as `01.2.3.4` or `0x7f.1`, ranges and host names are refused.',
      examples: ['24.48.0.1'],
    }),
  location: IpLocation.optional(),
  reverseCheck: queryBoolean('When true, `metadata.reverse` carries the PTR name of the address (null when it has none).').optional(),
})
export type IpCheckQuery = z.infer<typeof IpCheckQuery>

export const IpCheckBatchBody = z
  .object({
    ips: z.array(z.string().max(100)).min(1).max(100).meta({ description: 'Addresses to look up, at most 100' }),
    reverseCheck: z.boolean().optional().meta({ description: "Also look up each address's PTR name" }),
  })
  .strict()
  .meta({ id: 'IpCheckBatchRequest' })
export type IpCheckBatchBody = z.infer<typeof IpCheckBatchBody>

// ---- Outputs -----------------------------------------------------------------------------------

const mapLink = (service: string) =>
  z
    .url()
    .nullable()
    .meta({ description: `${service} link to the location; null when the address has no location` })

export const MapsUrl = z.object({ map_a: mapLink('Google Maps'), map_b: mapLink('OpenStreetMap'), map_c: mapLink('Bing Maps') }).meta({ id: 'IpMapsUrl' })
export type MapsUrl = z.infer<typeof MapsUrl>

export const IpMetadata = z
  .object({
    status: z.string().meta({ description: '`success`', examples: ['success'] }),
    country: z.string().meta({ examples: ['Canada'] }),
    countryCode: z.string().meta({ description: 'ISO 3166-1 alpha-2', examples: ['CA'] }),
    region: z.string().meta({ description: 'Region or state code', examples: ['QC'] }),
    regionName: z.string().meta({ examples: ['Quebec'] }),
    city: z.string().meta({ examples: ['Montreal'] }),
    zip: z.string().meta({ description: 'Postal code; empty when unknown', examples: ['H3G'] }),
    lat: z.number().meta({ examples: [45.4995] }),
    lon: z.number().meta({ examples: [-73.5848] }),
    timezone: z.string().meta({ description: 'IANA time zone', examples: ['America/Toronto'] }),
    utcOffset: z.int().meta({ description: 'Current offset from UTC in seconds (daylight saving included)', examples: [-14400] }),
    isp: z.string().meta({ examples: ['Le Groupe Videotron Ltee'] }),
    org: z.string().meta({ examples: ['Videotron Ltee'] }),
    as: z.string().meta({ description: 'AS number and name', examples: ['AS5769 Videotron Telecom Ltee'] }),
    reverse: z.string().nullable().meta({ description: 'PTR name when `reverseCheck=true` and one exists; null otherwise' }),
    mobile: z.boolean().meta({ description: 'Mobile (cellular) connection' }),
    proxy: z.boolean().meta({ description: 'Proxy, VPN or Tor exit address' }),
    hosting: z.boolean().meta({ description: 'Hosting, colocation or data-centre address' }),
  })
  .meta({ id: 'IpMetadata', description: 'Geolocation and network data (source: ip-api.com)' })
export type IpMetadata = z.infer<typeof IpMetadata>

export const IpLookup = z.object({
  result: z.string().meta({ description: 'The address that was looked up, in canonical form', examples: ['24.48.0.1'] }),
  ipVersion: z.int().meta({ description: '4 or 6', examples: [4] }),
  mapsUrl: MapsUrl,
  metadata: IpMetadata,
})
export type IpLookup = z.infer<typeof IpLookup>

const contacts = z.array(z.string()).meta({ description: 'Where to send questions or corrections about a lookup' })
const disclaimer = z.string().meta({ description: 'How far the location can be trusted' })

export const IpCheckResult = IpLookup.extend({ contacts, loc_disclaimer: disclaimer, support: Support }).meta({ id: 'IpCheckResult' })
export type IpCheckResult = z.infer<typeof IpCheckResult>

export const IpCheckBatchItem = z
  .object({
    query: z.string().meta({ description: 'The item as sent' }),
    lookup: IpLookup.nullable().meta({ description: 'The lookup; null when this item failed' }),
    error: z.string().nullable().meta({ description: 'Why this item could not be looked up; null on success' }),
  })
  .meta({ id: 'IpCheckBatchItem' })
export type IpCheckBatchItem = z.infer<typeof IpCheckBatchItem>

export const IpCheckBatchResult = z
  .object({ results: z.array(IpCheckBatchItem), contacts, loc_disclaimer: disclaimer, support: Support })
  .meta({ id: 'IpCheckBatchResult' })
export type IpCheckBatchResult = z.infer<typeof IpCheckBatchResult>

// ---- ip-api.com payloads -----------------------------------------------------------------------

export const IpApiSuccess = z.object({
  status: z.literal('success'),
  query: z.string(),
  country: z.string(),
  countryCode: z.string(),
  region: z.string(),
  regionName: z.string(),
  city: z.string(),
  zip: z.string(),
  lat: z.number(),
  lon: z.number(),
  timezone: z.string(),
  offset: z.int(),
  isp: z.string(),
  org: z.string(),
  as: z.string(),
  reverse: z.string().optional(),
  mobile: z.boolean(),
  proxy: z.boolean(),
  hosting: z.boolean(),
})
export type IpApiSuccess = z.infer<typeof IpApiSuccess>

export const IpApiFail = z.object({ status: z.literal('fail'), message: z.string(), query: z.string().optional() })
export type IpApiFail = z.infer<typeof IpApiFail>

export const IpApiAnswer = z.discriminatedUnion('status', [IpApiSuccess, IpApiFail])
export type IpApiAnswer = z.infer<typeof IpApiAnswer>
