// The origin a request was made to, as the client spelled it: the first X-Forwarded-Host /
// X-Forwarded-Proto when a proxy in front set them, else the Host header over plain HTTP (server.mjs
// serves HTTP; TLS ends in front of it). Used only to word links and examples back to the same
// client, never for a decision about access.

const HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/

export function requestOrigin(headers: Pick<Headers, 'get'>, fallbackProtocol = 'http'): string | null {
  const host = headers.get('x-forwarded-host')?.split(',')[0].trim() || headers.get('host')?.trim()
  if (!host || !HOST.test(host)) return null
  const forwarded = headers.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase()
  const proto = forwarded === 'https' || forwarded === 'http' ? forwarded : fallbackProtocol
  return `${proto}://${host}`
}
