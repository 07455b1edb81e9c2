import { describe, expect, it } from 'vitest'
import { checkServiceDomain, handleSyntaxProblem, normalizeHandle } from '@/lib/pds/handle'
import { PdsHandle } from '@/lib/pds/schemas'

describe('handle syntax', () => {
  it.each([
    'alice.bsky.social',
    'Alice.Example.COM',
    'jay.bsky.social',
    'xn--ls8h.test',
    'a.co',
    'laptop.a-b.example.org',
    '8.cn',
    'john.test',
    'a'.repeat(63) + '.com',
    ['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(61)].join('.'), // 253 characters
  ])('accepts %s', (handle) => {
    expect(handleSyntaxProblem(handle)).toBeNull()
  })

  it.each([
    ['', 'required'],
    ['   ', 'required'],
    ['@alice.bsky.social', 'leading "@"'],
    ['alice_b.bsky.social', 'found "_"'],
    ['alíce.bsky.social', 'found "í"'],
    ['alice bsky.social', 'found " "'],
    ['alice', 'at least two labels'],
    ['alice.bsky.social.', 'must not end with a dot'],
    ['.alice.bsky.social', 'empty label'],
    ['alice..social', 'empty label'],
    ['-alice.bsky.social', 'must not start or end with a hyphen'],
    ['alice-.bsky.social', 'must not start or end with a hyphen'],
    ['a'.repeat(64) + '.com', 'at most 63 characters'],
    [['a'.repeat(63), 'b'.repeat(63), 'c'.repeat(63), 'd'.repeat(62)].join('.'), 'at most 253 characters'],
    ['alice.bsky.123', 'must not start with a digit'],
    ['alice.bsky.1social', 'must not start with a digit'],
    ['alice.local', '".local" is reserved'],
    ['alice.onion', '".onion" is reserved'],
    ['host.ARPA', '".arpa" is reserved'],
    ['x.internal', '".internal" is reserved'],
  ])('rejects %j (%s)', (handle, rule) => {
    expect(handleSyntaxProblem(handle)).toContain(rule)
  })

  it('normalises to lower case', () => {
    expect(normalizeHandle(' Alice.Example.COM ')).toBe('alice.example.com')
  })

  it('the schema names the broken rule', () => {
    const result = PdsHandle.safeParse('alice..social')
    expect(result.success).toBe(false)
    expect(result.error?.issues[0].message).toContain('empty label')
    expect(PdsHandle.safeParse('alice.example.com').success).toBe(true)
  })
})

describe('service-domain rules', () => {
  const domains = ['.bsky.social', '.pds.example.net']

  it.each([
    ['alice.bsky.social', { domain: '.bsky.social', invalid: null, unavailable: null }],
    ['abc.pds.example.net', { domain: '.pds.example.net', invalid: null, unavailable: null }],
    ['a23456789012345678.bsky.social', { domain: '.bsky.social', invalid: null, unavailable: null }],
    ['alice.example.com', { domain: null, invalid: null, unavailable: null }],
    ['bsky.social', { domain: null, invalid: null, unavailable: null }],
  ])('%s passes', (handle, expected) => {
    expect(checkServiceDomain(handle, domains)).toEqual(expected)
  })

  it.each([
    ['ab.bsky.social', 'at least 3 characters'],
    ['a234567890123456789.bsky.social', 'at most 18 characters'],
    ['alice.smith.bsky.social', 'no dots'],
  ])('%s is invalid (%s)', (handle, rule) => {
    const check = checkServiceDomain(handle, domains)
    expect(check.domain).toBe('.bsky.social')
    expect(check.invalid).toContain(rule)
    expect(check.unavailable).toBeNull()
  })

  it.each(['admin.bsky.social', 'support.pds.example.net', 'www.bsky.social'])('%s is reserved', (handle) => {
    const check = checkServiceDomain(handle, domains)
    expect(check.invalid).toBeNull()
    expect(check.unavailable).toContain('reserved')
  })

  it('accepts user domains given without a leading dot or in upper case', () => {
    expect(checkServiceDomain('ab.pds.test', ['PDS.TEST']).invalid).toContain('at least 3')
  })
})
