import { z } from 'zod'
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi'
import pkg from '@/package.json'
import { config, publicBaseUrlConfigured, type Config } from '@/lib/config'
import { ERROR_FORMATS } from '@/lib/http/errors'
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors'
import { INTERNAL_KEY_HEADER } from '@/lib/http/headers'
import { errorCodesOf, TAGS, type Operation } from '@/lib/http/operation'
import { mcpPathItem } from '@/lib/openapi/mcp'
import { operations } from '@/lib/operations'
import { addParameterExamples, errorExamples, recordedByStatus, recordedExamples, requestBodyExamples, sharedErrorExamples } from '@/lib/openapi/examples'
import { overrideSchema, typeEverySchema } from '@/lib/openapi/schema-fixes'

// The OpenAPI 3.1 document, built from the same operation objects (and Zod schemas) that
// route() validates with, so the document cannot drift from the handlers.

const STATUS_TEXT: Record<number, string> = {
  400: 'Invalid input: the message names the parameter and the problem',
  401: 'Authentication required',
  403: 'Forbidden: missing or invalid internal API key',
  404: 'Not found',
  405: 'Method not allowed: the path answers other methods with 405 and an Allow header listing its methods',
  409: 'Conflict',
  413: 'Request body too large for this operation',
  415: 'Unsupported media type: send the body as application/json',
  429: 'Rate limit exceeded: retry after the Retry-After seconds',
  500: 'Internal server error; the body carries the request id',
  502: 'An upstream service failed or answered something unusable',
  503: 'Not configured or temporarily unavailable',
  504: 'An upstream service did not answer in time',
}

// Every answer carries these; each is one component that the responses reference.
const rateLimitHeaders = {
  RateLimit: z.string().meta({
    description: 'Remaining quota and seconds to reset (draft-ietf-httpapi-ratelimit-headers): `"default";r=<remaining>;t=<seconds>`',
    header: { id: 'RateLimit' },
  }),
  'RateLimit-Policy': z.string().meta({ description: 'The quota policy: `"default";q=500;w=30`', header: { id: 'RateLimitPolicy' } }),
  'X-Request-Id': z.uuid().meta({ description: 'Id of this request, also in logs and error bodies', header: { id: 'RequestId' } }),
}
const retryAfterHeader = z.string().meta({ description: 'Seconds to wait before retrying', header: { id: 'RetryAfter' } })

function errorResponses(op: Operation, c: Config) {
  const byStatus = new Map<number, ErrorCode[]>()
  for (const code of errorCodesOf(op)) byStatus.set(ERROR_STATUS[code], [...(byStatus.get(ERROR_STATUS[code]) ?? []), code])
  const responses: Record<string, unknown> = {}
  for (const [status, codes] of byStatus) {
    // The gate answers 429 (and the internal-key 403) before the operation runs, in its own shapes.
    const format = status === 429 ? 'envelope' : status === 403 && op.internal ? 'errorString' : (op.errorFormat ?? 'envelope')
    const headers = status === 429 ? { ...rateLimitHeaders, 'Retry-After': retryAfterHeader } : rateLimitHeaders
    const text = STATUS_TEXT[status] ?? 'Error'
    responses[String(status)] = {
      description: `${text} (${codes.join(', ')})`,
      headers: z.object(headers),
      content: { 'application/json': { schema: ERROR_FORMATS[format].schema, examples: errorExamples(op, status, codes, format, text, c) } },
    }
  }
  return responses
}

function toOperationObject(op: Operation, c: Config): ZodOpenApiOperationObject {
  const success = op.success
  const status = String(success.status ?? 200)
  const bodyExamples = requestBodyExamples(op)
  const successExamples = recordedByStatus(op).get(success.status ?? 200)
  const experimental = op.experimental ? '**Experimental**: may change shape or disappear without notice.\n\n' : ''
  return {
    operationId: op.operationId,
    summary: op.summary,
    description: `${experimental}${op.description ?? ''}`.trim() || undefined,
    tags: [op.tag],
    requestParams: {
      ...(op.query ? { query: op.query as z.ZodObject } : {}),
      ...(op.params ? { path: op.params as z.ZodObject } : {}),
      ...(op.internal
        ? { header: z.object({ [INTERNAL_KEY_HEADER]: z.string().meta({ description: 'Internal API key (never issued to third parties)' }) }) }
        : {}),
    },
    ...(op.body
      ? { requestBody: { required: true, content: { 'application/json': { schema: op.body, ...(bodyExamples ? { examples: bodyExamples } : {}) } } } }
      : {}),
    ...(op.internal ? { security: [{ internalApiKey: [] }] } : { security: [] }),
    ...(op.experimental ? { 'x-experimental': true } : {}),
    ...(op.deprecated ? { deprecated: true } : {}),
    ...(op.internal ? { 'x-internal-operation': true } : {}),
    responses: {
      [status]: {
        description: success.description,
        headers: z.object({ ...rateLimitHeaders, ...(success.headers ?? {}) }),
        ...(success.schema ? { content: { 'application/json': { schema: success.schema, ...(successExamples ? { examples: successExamples } : {}) } } } : {}),
      },
      ...errorResponses(op, c),
    },
  } as ZodOpenApiOperationObject
}

export function buildOpenApiDocument(ops: readonly Operation[] = operations, c: Config = config) {
  const paths: ZodOpenApiPathsObject = {}
  for (const op of ops) {
    paths[op.path] ??= {}
    ;(paths[op.path] as Record<string, ZodOpenApiOperationObject>)[op.method.toLowerCase()] = toOperationObject(op, c)
  }
  // The tool server is not a route() operation: its requests and answers are JSON-RPC.
  paths['/mcp'] = mcpPathItem(z.object(rateLimitHeaders), retryAfterHeader, recordedExamples.mcp, { max: c.RATE_LIMIT_MAX, windowS: c.RATE_LIMIT_WINDOW_S })
  const servers = [{ url: new URL('/api', c.PUBLIC_BASE_URL).toString().replace(/\/$/, ''), description: 'Production' }]
  if (c.DEV_BASE_URL)
    servers.push({ url: new URL('/api', c.DEV_BASE_URL).toString().replace(/\/$/, ''), description: 'Development (may break without notice)' })
  const usedTags = new Set([...ops.map((op) => op.tag), 'Tool server'])
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Utility API',
        version: pkg.version,
        description:
          'Public utility API: platform health, Bluesky PDS statistics, blog, domains and mail security, directory tools, Apple OS versions, IP lookup and generators.\n\n' +
          `Rate limit: ${c.RATE_LIMIT_MAX} requests per ${c.RATE_LIMIT_WINDOW_S} seconds per client IP (an IPv6 client per /64); \`GET /api/health\` is counted apart, ${c.PROBE_RATE_LIMIT_MAX} per window (policy \`probe\`), so a client's own limit never refuses a load balancer's probe. Every response carries \`RateLimit\` and \`RateLimit-Policy\` headers; a 429 adds \`Retry-After\`.\n\n` +
          'Errors: operations whose error body the specification fixes use that shape; every other error is `{"error":{"code","message","requestId"}}`. Every response carries `X-Request-Id`; quote it when asking for support.',
        contact: { name: 'Support', email: c.SUPPORT_EMAIL, url: c.SUPPORT_URL },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers,
      tags: Object.entries(TAGS)
        .filter(([name]) => usedTags.has(name as keyof typeof TAGS))
        .map(([name, description]) => ({ name, description })),
      security: [],
      components: {
        securitySchemes: {
          internalApiKey: { type: 'apiKey', in: 'header', name: INTERNAL_KEY_HEADER, description: 'Internal operations only' },
        },
      },
      paths,
    },
    { override: overrideSchema },
  )
  typeEverySchema(document as unknown as Record<string, unknown>)
  addParameterExamples(document as unknown as Record<string, unknown>, ops)
  return document
}

let cached: ReturnType<typeof buildOpenApiDocument> | undefined
export const getOpenApiDocument = () => (cached ??= buildOpenApiDocument())

/**
 * The document as served at `origin` (the origin the request was made to). With PUBLIC_BASE_URL
 * set it is the document as built; unset, its first server is this origin's `/api`, described as
 * "This server", so the reference's Test Request and its curl samples work on whatever host and
 * port the instance is reached at. Nothing else differs.
 */
export function openApiDocumentFor(origin: string | null, c: Config = config, doc: ReturnType<typeof buildOpenApiDocument> = getOpenApiDocument()) {
  if (publicBaseUrlConfigured(c) || !origin) return doc
  const servers = [{ url: `${origin.replace(/\/$/, '')}/api`, description: 'This server' }, ...(doc.servers ?? []).slice(1)]
  return { ...doc, servers }
}
