import { describe, expect, it } from 'vitest'
import { normaliseDomain } from '@/lib/domains/domain-name'
import { DkimSelectors, DomainHealthQuery, DomainName } from '@/lib/domains/schemas'

describe('domain-name validation', () => {
  it.each([
    ['example.com', 'example.com'],
    ['Example.COM', 'example.com'],
    ['example.com.', 'example.com'],
    ['  mail.example.co.uk ', 'mail.example.co.uk'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['xn--mnchen-3ya.de', 'xn--mnchen-3ya.de'],
    ['a-b.example', 'a-b.example'],
    ['123.example', '123.example'],
    ['faß.de', 'xn--fa-hia.de'], // non-transitional: ß stays ß, not "ss"
    ['💩.la', 'xn--ls8h.la'],
    [`${'a'.repeat(63)}.com`, `${'a'.repeat(63)}.com`],
  ])('accepts %j as %j', (input, expected) => {
    expect(normaliseDomain(input)).toEqual({ ok: true, domain: expected })
  })

  it.each([
    ['', /required/],
    ['localhost', /at least two labels/],
    ['192.0.2.1', /IP address/],
    ['2001:db8::1', /IP address/],
    ['https://example.com', /bare domain name/],
    ['user@example.com', /bare domain name/],
    ['example.com/path', /bare domain name/],
    ['exa mple.com', /bare domain name/],
    ['example..com', /empty label/],
    ['.example.com', /empty label/],
    ['-example.com', /may not start or end with a hyphen/],
    ['example-.com', /may not start or end with a hyphen/],
    ['exa_mple.com', /letters, digits and hyphens/],
    [`${'a'.repeat(64)}.com`, /longer than 63/],
    [`${Array(51).fill('abcd').join('.')}.com`, /longer than 253/],
    ['ab--cd.com', /not a valid IDNA label/],
    ['xn--abc.com', /internationalised|IDNA/],
    ['XN--ABC.com', /internationalised|IDNA/],
    ['a\u200db.com', /internationalised/], // CheckJoiners: a zero-width joiner outside its allowed context
    ['aא.com', /internationalised/], // CheckBidi: left-to-right and right-to-left letters in one label
    ['xn----bga.com', /internationalised|IDNA/], // CheckHyphens on the decoded label ("-é")
    ['example.123', /all-numeric top-level/],
  ])('rejects %j', (input, problem) => {
    const r = normaliseDomain(input)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.problem).toMatch(problem)
  })

  it('is the schema the operation and the tool server share', () => {
    expect(DomainName.parse('München.DE')).toBe('xn--mnchen-3ya.de')
    const bad = DomainName.safeParse('not_a.domain')
    expect(bad.success).toBe(false)
    expect(bad.error?.issues[0].message).toMatch(/letters, digits and hyphens/)
  })

  it('parses comma-separated selectors and caps them at 10', () => {
    expect(DomainHealthQuery.parse({ selectors: 'S2048, mandrill,,' })).toEqual({ selectors: ['s2048', 'mandrill'] })
    expect(DomainHealthQuery.safeParse({ selectors: Array(11).fill('s').join(',') }).success).toBe(false)
    expect(DkimSelectors.safeParse(['bad selector']).success).toBe(false)
    expect(DkimSelectors.parse(['s1.sub'])).toEqual(['s1.sub'])
  })
})
