import type { z } from 'zod'
import { JSON_BODY_MAX_BYTES, NO_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import type { ErrorFormat } from '@/lib/http/errors'
import type { ErrorCode } from '@/lib/errors'

// An operation is declared once, beside its domain's schemas. The same object drives request
// validation in route(), the OpenAPI document, the internal-key gate and the contract tests.

export const TAGS = {
  Health: 'Service health check',
  'Social platform': 'Bluesky PDS: repositories, handle availability, posting heatmap, storage usage, uptime',
  Blog: 'Posts, authors and metadata from the platform blog (Ghost)',
  Domains: 'Platform domains and their DNS and mail-security posture',
  Directory: 'Entra object ID ↔ SID conversion and public tenant lookup',
  Office: 'Message Center publishing (internal)',
  'Device OS versions': 'Latest OS version for an Apple device model',
  'IP checker': 'Geolocation and network data for an IP address',
  Generator: 'GUIDs and .NET timestamp ticks',
  Policies: 'Policies applied across the platform',
  Bookings: "Redirect to a user's bookings page (experimental)",
  'Tool server': 'Model Context Protocol endpoint (JSON-RPC over streamable HTTP)',
} as const

export type Tag = keyof typeof TAGS
export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

type AnyObject = z.ZodType<Record<string, unknown>>

/**
 * A request whose real answer is an example in the OpenAPI document: `npm run openapi:examples`
 * sends it to the operation, with the upstream services replaying recorded payloads, and keeps the
 * answer in lib/openapi/examples.json.
 */
export interface OperationExample<B extends z.ZodType | undefined = z.ZodType | undefined> {
  /** Key of the example in the document, camelCase. */
  name: string
  summary: string
  /** Query and path values as they appear in the URL. */
  query?: Record<string, string>
  params?: Record<string, string>
  body?: B extends z.ZodType ? z.input<B> : never
  /** JSON pointers of answer values that differ on every call (clock, random ids), not compared when checking freshness. */
  varies?: string[]
}

export interface Operation<
  Q extends AnyObject | undefined = AnyObject | undefined,
  P extends AnyObject | undefined = AnyObject | undefined,
  B extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method
  /** OpenAPI path relative to /api, with {param} placeholders. */
  path: string
  /** Unique, URL-safe, camelCase. */
  operationId: string
  tag: Tag
  summary: string
  description?: string
  query?: Q
  params?: P
  body?: B
  /** Success response. `schema` omitted for non-JSON answers (a redirect). */
  success: {
    status?: number
    description: string
    schema?: z.ZodType
    /** Response headers, each schema carrying its description in .meta(). */
    headers?: Record<string, z.ZodType>
  }
  /** Error codes this operation can answer with, beyond 400 (inputs), 403 (internal), 429 and 500. */
  errors?: ErrorCode[]
  /** Wire shape of this operation's errors, where its existing clients read one of their own. */
  errorFormat?: ErrorFormat
  /** Requires the x-tc-api-key header. */
  internal?: boolean
  experimental?: boolean
  /** Kept for existing clients; marked deprecated in the OpenAPI document. */
  deprecated?: boolean
  /** Cache-Control of successful answers. */
  cacheControl?: string
  /** Example requests; those that succeed also give the parameters' example values. */
  examples?: OperationExample<B>[]
  /** Largest request body accepted (413 past it); defaults in lib/http/body.ts. */
  maxBodyBytes?: number
}

export function defineOperation<
  Q extends AnyObject | undefined = undefined,
  P extends AnyObject | undefined = undefined,
  B extends z.ZodType | undefined = undefined,
>(op: Operation<Q, P, B>): Operation<Q, P, B> {
  if (!/^[a-z][A-Za-z0-9]*$/.test(op.operationId)) throw new Error(`operationId must be camelCase: ${op.operationId}`)
  return op
}

/** Every error code the operation can produce, in the order the document lists them. */
export function errorCodesOf(op: Operation): ErrorCode[] {
  const codes = new Set<ErrorCode>()
  // A path's undecodable percent-encoding is a 400 even for operations without parameters.
  codes.add('invalid_input')
  if (op.internal) codes.add('forbidden')
  // Every path answers other methods with 405 and Allow, and bodies past the limit with 413.
  codes.add('method_not_allowed')
  codes.add('payload_too_large')
  if (op.body) codes.add('unsupported_media_type')
  for (const code of op.errors ?? []) codes.add(code)
  codes.add('rate_limited')
  codes.add('internal')
  return [...codes]
}

/** The byte limit of the operation's request body. */
export function bodyLimitOf(op: Operation): number {
  return op.maxBodyBytes ?? (op.body ? JSON_BODY_MAX_BYTES : NO_BODY_MAX_BYTES)
}

/** `/directory/convertid/{id}` → a RegExp matching `/api/directory/convertid/<anything>`. */
export function pathPattern(path: string): RegExp {
  const escaped = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')
  return new RegExp(`^/api${escaped}/?$`)
}
