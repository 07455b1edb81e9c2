import { JSON_BODY_MAX_BYTES } from '@/lib/http/body-sizes'
import { AppError } from '@/lib/errors'

// Request bodies, bounded before they are parsed: a byte limit enforced while the body streams in
// (and up front when Content-Length already says too much), a media-type check, and a nesting-depth
// limit checked in one linear pass before JSON.parse, so no body can make parsing or validation
// costly. server.mjs caps the body at the same limit before Next buffers it (lib/gate/body-limit.ts).

export const JSON_MAX_DEPTH = 32

const kib = (n: number) => (n >= 1024 * 1024 ? `${n / (1024 * 1024)} MiB` : `${Math.round(n / 1024)} KiB`)

export function bodyTooLarge(maxBytes: number, what = 'Request body'): AppError {
  return new AppError('payload_too_large', `${what} is larger than ${kib(maxBytes)} (${maxBytes} bytes).`)
}

/** True when the request carries a body (declared length > 0, or chunked). */
export function hasBody(req: Request): boolean {
  const length = req.headers.get('content-length')
  return length !== null ? Number(length) > 0 : req.headers.has('transfer-encoding')
}

/**
 * The bytes of a request's or response's body, refused with `tooLarge()` as soon as they pass
 * `maxBytes` (declared up front, or counted as they stream in), without reading the rest.
 */
export async function readCapped(message: Request | Response, maxBytes: number, tooLarge: () => Error): Promise<Uint8Array> {
  if (Number(message.headers.get('content-length') ?? 0) > maxBytes) {
    await message.body?.cancel().catch(() => {})
    throw tooLarge()
  }
  if (!message.body) return new Uint8Array()
  const reader = message.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks)
}

/** The request body's bytes; 413 as soon as they pass `maxBytes`. */
export const readBody = (req: Request, maxBytes: number, what?: string) => readCapped(req, maxBytes, () => bodyTooLarge(maxBytes, what))

/** 415 unless the body is declared as JSON (application/json or a +json type). */
export function requireJsonContentType(req: Request) {
  const type = req.headers.get('content-type')?.split(';')[0].trim().toLowerCase() ?? ''
  if (type !== 'application/json' && !/^application\/[a-z0-9.+-]+\+json$/.test(type))
    throw new AppError('unsupported_media_type', `Content-Type must be application/json${type ? `, not ${type}` : ' (none was sent)'}.`)
}

/** The deepest nesting of arrays and objects in a JSON text (strings skipped), stopping past `limit`. */
export function jsonDepth(text: string, limit = Infinity): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92)
        i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > deepest && (deepest = depth) > limit) return deepest
    } else if (c === 93 || c === 125) depth--
  }
  return deepest
}

/** JSON text → value; 400 for invalid JSON or nesting deeper than JSON_MAX_DEPTH. Empty → undefined. */
export function parseJsonText(text: string): unknown {
  if (!text.trim()) return undefined
  if (jsonDepth(text, JSON_MAX_DEPTH) > JSON_MAX_DEPTH) throw new AppError('invalid_input', `Request body is nested deeper than ${JSON_MAX_DEPTH} levels.`)
  try {
    return JSON.parse(text)
  } catch {
    throw new AppError('invalid_input', 'Request body is not valid JSON.')
  }
}

/** A JSON request body, bounded: 415, 413 and 400 as above. An absent body is undefined. */
export async function readJsonBody(req: Request, maxBytes = JSON_BODY_MAX_BYTES): Promise<unknown> {
  if (!hasBody(req)) return undefined
  requireJsonContentType(req)
  return parseJsonText(new TextDecoder().decode(await readBody(req, maxBytes)))
}
