import { afterAll, describe, expect, it } from 'vitest'
import { fixture, startFakeUpstream } from '../../test-support/fake-upstream'

// The policy fetch against a loopback policy host: RFC 8461 §3.3 rules and faults.
const POLICY = fixture('mta-sts/mta-sts.adisa.org.uk-enforce-max_age-before-mx-CRLF.txt')
const host = await startFakeUpstream((req, res) => {
  const domain = req.path.split('/')[1]
  switch (domain) {
    case 'ok.example':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(POLICY)
      break
    case 'redirect.example':
      res.writeHead(301, { location: `/ok.example/.well-known/mta-sts.txt` }).end()
      break
    case 'html.example':
      res.writeHead(200, { 'content-type': 'text/html' }).end(POLICY)
      break
    case 'big.example':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('x'.repeat(70 * 1024))
      break
    case 'slow.example':
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/plain' }).end(POLICY), 3000)
      break
    default:
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found')
  }
})
process.env.MTA_STS_URL_TEMPLATE = `${host.url}/{domain}/.well-known/mta-sts.txt`
const { checkPolicyHost, fetchMtaStsPolicy, isPublicAddress } = await import('@/lib/domains/upstream')

afterAll(() => host.close())

describe('MTA-STS policy fetch', () => {
  it('returns the body of a 200 text/plain answer', async () => {
    const r = await fetchMtaStsPolicy('ok.example')
    expect(r).toEqual({ ok: true, url: `${host.url}/ok.example/.well-known/mta-sts.txt`, text: POLICY })
  })

  it.each([
    ['redirect.example', /HTTP 301 redirect; senders do not follow redirects/],
    ['html.example', /media type "text\/html"; it must be text\/plain/],
    ['big.example', /larger than 65536 bytes/],
    ['missing.example', /^HTTP 404$/],
  ])('refuses %s', async (domain, reason) => {
    const r = await fetchMtaStsPolicy(domain)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(reason)
  })

  it('does not follow the redirect', async () => {
    const before = host.requests.filter((r) => r.path.startsWith('/ok.example')).length
    await fetchMtaStsPolicy('redirect.example')
    expect(host.requests.filter((r) => r.path.startsWith('/ok.example')).length).toBe(before)
  })

  it('gives up at its deadline', async () => {
    const r = await fetchMtaStsPolicy('slow.example', 300)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toMatch(/did not answer within 300 ms/)
  })
})

describe('policy host guard', () => {
  const addresses = (map: Record<string, string[]>) => async (host: string) => map[host] ?? []

  it.each([
    ['8.8.8.8', true],
    ['2a00:1450:4001::1', true],
    ['10.0.0.1', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['100.64.0.1', false],
    ['::1', false],
    ['fe80::1', false],
    ['::ffff:127.0.0.1', false],
    ['not-an-ip', false],
  ])('%s public: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected)
  })

  it('refuses a policy host of the checked domain that points inside', async () => {
    const url = 'https://mta-sts.evil.example/.well-known/mta-sts.txt'
    expect(await checkPolicyHost(url, 'evil.example', addresses({ 'mta-sts.evil.example': ['203.0.113.5', '10.1.2.3'] }))).toEqual({
      ok: false,
      reason: 'mta-sts.evil.example resolves to a non-public address (203.0.113.5, 10.1.2.3); not fetched',
    })
    expect(await checkPolicyHost(url, 'evil.example', addresses({}))).toEqual({ ok: false, reason: 'mta-sts.evil.example has no A or AAAA record' })
    // The addresses checked are the ones the fetch connects to.
    expect(await checkPolicyHost(url, 'evil.example', addresses({ 'mta-sts.evil.example': ['8.8.4.4'] }))).toEqual({ ok: true, addresses: ['8.8.4.4'] })
  })

  it("leaves a fixed host from the operator's template alone", async () => {
    const lookups: string[] = []
    const r = await checkPolicyHost('http://127.0.0.1:8080/evil.example/mta-sts.txt', 'evil.example', async (h) => (lookups.push(h), []))
    expect(r).toEqual({ ok: true, addresses: null })
    expect(lookups).toEqual([])
  })
})
