import { describe, expect, it } from 'vitest'
import { redactedUrl } from '@/lib/upstream/http'

// The URL an upstream call's span shows (url.full): no credentials and no query values, which may
// hold a key; the path and the parameter names stay.
describe('redactedUrl', () => {
  it('drops credentials and replaces every query value', () => {
    expect(redactedUrl('https://user:secret@api.example.com:8443/v1/items?key=abc123&fields=a,b&key=again')).toBe(
      'https://api.example.com:8443/v1/items?key=REDACTED&fields=REDACTED',
    )
  })

  it('keeps a URL without a query as it is', () => {
    expect(redactedUrl('http://127.0.0.1:9/json/24.48.0.1')).toBe('http://127.0.0.1:9/json/24.48.0.1')
  })

  it('names an unparsable URL instead of echoing it', () => {
    expect(redactedUrl('not a url?token=x')).toBe('unparsable')
  })
})
