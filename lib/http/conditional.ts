import { createHash } from 'node:crypto'

// A JSON document answered with a strong ETag and honouring If-None-Match (RFC 9110 §13.1.2): 304
// without a body when the client already holds this representation.

/** A strong validator of the exact bytes: the base64url SHA-256 of the body, quoted. */
const strongEtag = (body: string) => `"${createHash('sha256').update(body).digest('base64url')}"`

/** If-None-Match uses the weak comparison: `W/"x"` matches `"x"`, and `*` matches any. */
function noneMatch(ifNoneMatch: string | null, etag: string): boolean {
  if (ifNoneMatch === null) return false
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t.replace(/^W\//, '') === etag
  })
}

/** 200 with `body` as JSON of `contentType`, or 304 when If-None-Match names its ETag; `headers` go on both. */
export function conditionalJson(request: Request, body: unknown, contentType: string, headers: Record<string, string>): Response {
  const text = JSON.stringify(body)
  const etag = strongEtag(text)
  const common = { ...headers, etag }
  if (noneMatch(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers: common })
  return new Response(text, { status: 200, headers: { ...common, 'content-type': contentType } })
}
