import * as dnsPacket from 'dns-packet'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startApp, type RunningApp } from '../../test-support/app'
import { loadZones } from '../../test-support/dns-zones'
import { answerQuery } from '../../test-support/fake-doh'
import { fixture, startFakeUpstream, type FakeUpstream } from '../../test-support/fake-upstream'
import { loadContract } from '../../test-support/openapi'

// The built app against a loopback DoH server answering from the zone fixtures and a loopback
// MTA-STS policy host serving the recorded policies. `fault` switches the DoH server to failing.

const zone = loadZones('well-configured', 'providers', 'weak', 'platform')
const POLICIES: Record<string, string> = {
  'febit.eu': 'mta-sts.febit.eu-enforce-wildcard-mx.txt',
  'weak.example': 'alexvernon-testing-mode-mx-trailing-dot.txt',
  'partial.example': 'alexvernon-testing-mode-mx-trailing-dot.txt',
}
let fault: 'http500' | 'hang' | null = null

let app: RunningApp
let doh: FakeUpstream
let policyHost: FakeUpstream
let contract: Awaited<ReturnType<typeof loadContract>>

beforeAll(async () => {
  doh = await startFakeUpstream((req, res) => {
    if (fault === 'http500') return void res.writeHead(500).end('resolver down')
    if (fault === 'hang') return // never answers
    res.writeHead(200, { 'content-type': 'application/dns-message' }).end(answerQuery(zone, dnsPacket.decode(req.body)))
  })
  policyHost = await startFakeUpstream((req, res) => {
    const file = POLICIES[req.path.split('/')[1]]
    if (!file) return void res.writeHead(404).end()
    res.writeHead(200, { 'content-type': 'text/plain' }).end(fixture(`mta-sts/${file}`))
  })
  app = await startApp({
    DOH_URL: `${doh.url}/dns-query`,
    MTA_STS_URL_TEMPLATE: `${policyHost.url}/{domain}/.well-known/mta-sts.txt`,
    PLATFORM_DOMAINS: 'platform.example, febit.eu',
    UPSTREAM_TIMEOUT_MS: '1500',
  })
  contract = await loadContract(app.url)
})

afterAll(async () => {
  await app?.stop()
  await doh?.close()
  await policyHost?.close()
})

async function get(path: string) {
  const res = await fetch(`${app.url}${path}`)
  const body = await res.json()
  contract.expectValid('GET', path, res.status, body)
  return { status: res.status, body, headers: res.headers }
}

const statuses = (checks: Record<string, { status: string }>) => Object.fromEntries(Object.entries(checks).map(([k, v]) => [k, v.status]))

describe('GET /api/domains', () => {
  it('answers 502 when the resolver fails for every domain, and the server stays up', async () => {
    fault = 'http500'
    try {
      const r = await get('/api/domains')
      expect(r.status).toBe(502)
      expect(r.body.error.code).toBe('upstream_failed')
    } finally {
      fault = null
    }
  })

  it('lists the PLATFORM_DOMAINS with their records', async () => {
    const r = await get('/api/domains')
    expect(r.status).toBe(200)
    expect(r.body.source).toBe('PLATFORM_DOMAINS')
    expect(r.body.count).toBe(2)
    expect(r.body.domains).toEqual([
      {
        domain: 'platform.example',
        authoritativeNameServers: ['ns1.dns-host.example', 'ns2.dns-host.example'],
        mxRecords: ['0 .'],
        spfRecord: 'v=spf1 -all',
        dmarcRecord: 'v=DMARC1; p=reject; sp=reject; adkim=s; aspf=s',
        dmarcPolicy: 'reject',
        error: null,
      },
      {
        domain: 'febit.eu',
        authoritativeNameServers: ['ns1.dns-host.example', 'ns2.dns-host.example'],
        mxRecords: ['10 mx1.febit.eu', '20 mx2.febit.eu'],
        spfRecord: 'v=spf1 mx include:spf.mail-provider.example -all',
        dmarcRecord: 'v=DMARC1; p=reject; sp=reject; np=reject; adkim=s; aspf=s; rua=mailto:dmarc@febit.eu,mailto:agg@dmarc-reports.example',
        dmarcPolicy: 'reject',
        error: null,
      },
    ])
  })
})

describe('GET /api/domains/{domain}', () => {
  it('passes every check of a well-configured platform domain', async () => {
    const r = await get('/api/domains/febit.eu')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ domain: 'febit.eu', isPlatformDomain: true, score: 100, grade: 'A', recommendations: [] })
    expect(statuses(r.body.checks)).toEqual({
      mx: 'pass',
      spf: 'pass',
      dmarc: 'pass',
      dkim: 'pass',
      mtaSts: 'pass',
      tlsRpt: 'pass',
      bimi: 'pass',
      dnssec: 'pass',
      caa: 'pass',
      dane: 'pass',
    })
    expect(r.body.checks.mtaSts.policy).toEqual({
      version: 'STSv1',
      mode: 'enforce',
      maxAge: 2419200,
      mx: ['*.febit.eu', 'mxext1.mailbox.org', 'mxext2.mailbox.org', 'mxext3.mailbox.org', 'mx1.forwardemail.net', 'mx2.forwardemail.net'],
    })
    expect(r.body.checks.spf).toMatchObject({ lookupCount: 2, voidLookupCount: 0, allQualifier: '-' })
    expect(r.body.checks.dane.hosts.map((h: { host: string; authenticated: boolean }) => [h.host, h.authenticated])).toEqual([
      ['mx1.febit.eu', true],
      ['mx2.febit.eu', true],
    ])
    expect(policyHost.requests.some((q) => q.path === '/febit.eu/.well-known/mta-sts.txt')).toBe(true)
    expect(r.headers.get('cache-control')).toBe('public, max-age=60')
  })

  it('grades a weak domain with warnings, failures and the records to publish', async () => {
    const r = await get('/api/domains/weak.example?selectors=s2048,mandrill')
    expect(r.status).toBe(200)
    expect(r.body.isPlatformDomain).toBe(false)
    expect(statuses(r.body.checks)).toEqual({
      mx: 'pass',
      spf: 'warn',
      dmarc: 'warn',
      dkim: 'not_found',
      mtaSts: 'warn',
      tlsRpt: 'not_found',
      bimi: 'not_found',
      dnssec: 'fail',
      caa: 'not_found',
      dane: 'not_found',
    })
    // mx 10 + spf 10 + dmarc 12.5 + mtaSts 5 of 100
    expect(r.body.score).toBe(38)
    expect(r.body.grade).toBe('F')
    expect(r.body.summary).toEqual({ pass: 1, warn: 3, fail: 1, info: 0, not_found: 5 })
    expect(r.body.checks.dkim.selectorsProbed.slice(0, 3)).toEqual(['s2048', 'mandrill', 'selector1'])
    // mandrill is also a common selector: 16 common + s2048
    expect(r.body.checks.dkim.detail).toMatch(/^No DKIM key found among the 17 probed selectors/)
    expect(r.body.checks.dmarc.warnings.join(' ')).toMatch(/"pct=50" was removed in RFC 9989/)
    expect(r.body.recommendations.map((x: { check: string }) => x.check)).toEqual(['dmarc', 'spf', 'dkim', 'mtaSts', 'dnssec', 'tlsRpt', 'caa', 'dane'])
    const byCheck = Object.fromEntries(r.body.recommendations.map((x: { check: string; record: unknown }) => [x.check, x.record]))
    expect(byCheck.spf).toEqual({ name: 'weak.example', type: 'TXT', value: 'v=spf1 a mx include:spf.mail-provider.example -all' })
    expect(byCheck.dmarc).toEqual({ name: '_dmarc.weak.example', type: 'TXT', value: 'v=DMARC1; p=quarantine; rua=mailto:dmarc@reports.other.example' })
    expect(byCheck.tlsRpt).toEqual({ name: '_smtp._tls.weak.example', type: 'TXT', value: 'v=TLSRPTv1; rua=mailto:tls-reports@weak.example' })
    expect(r.body).toMatchObject({ mxRecords: ['10 mail.tutanota.de'], spfRecord: 'v=spf1 a mx include:spf.mail-provider.example ?all', dmarcPolicy: 'none' })
  })

  it('flags a platform domain and marks mail-receiving checks not applicable under a null MX', async () => {
    const r = await get('/api/domains/platform.example')
    expect(r.status).toBe(200)
    expect(r.body.isPlatformDomain).toBe(true)
    expect(r.body.checks.mx).toMatchObject({ status: 'pass', nullMx: true, records: ['0 .'] })
    expect([r.body.checks.mtaSts.status, r.body.checks.tlsRpt.status, r.body.checks.dane.status, r.body.checks.dkim.status]).toEqual([
      'info',
      'info',
      'info',
      'info',
    ])
    // mx 10 + spf 20 + dmarc 25 earned of 70 (DNSSEC and CAA count, the info checks do not)
    expect(r.body).toMatchObject({ score: 79, grade: 'B' })
  })

  it("reports a failed lookup as that check's info and keeps the rest", async () => {
    const r = await get('/api/domains/partial.example')
    expect(r.status).toBe(200)
    expect(r.body.checks.dmarc).toMatchObject({ status: 'info', detail: 'Not checked: the TXT lookup of _dmarc.partial.example failed (SERVFAIL).' })
    expect(r.body.checks.spf.status).toBe('pass')
  })

  it('answers 404 for a domain that does not exist (IDNA names in punycode)', async () => {
    const r = await get('/api/domains/nothing-here.example')
    expect(r.status).toBe(404)
    expect(r.body.error).toMatchObject({ code: 'not_found', message: 'nothing-here.example does not exist in DNS (NXDOMAIN).' })
    const idn = await get(`/api/domains/${encodeURIComponent('münchen.example')}`)
    expect(idn.status).toBe(404)
    expect(idn.body.error.message).toBe('xn--mnchen-3ya.example does not exist in DNS (NXDOMAIN).')
  })

  it.each([
    ['/api/domains/bad_name.example', /label "bad_name" may contain only letters, digits and hyphens/],
    ['/api/domains/localhost', /needs at least two labels/],
    ['/api/domains/192.0.2.1', /is an IP address/],
    ['/api/domains/xn--abc.com', /label "xn--abc" is not a valid IDNA label/], // not looked up, on every Node line
    ['/api/domains/example.com?selectors=a%20b', /selectors/],
  ])('answers 400 naming the problem for %s', async (path, message) => {
    const r = await get(path)
    expect(r.status).toBe(400)
    expect(r.body.error.code).toBe('invalid_input')
    expect(r.body.error.message).toMatch(message)
  })

  it('answers 502 when the resolver fails and 504 when it does not answer, and keeps serving', async () => {
    fault = 'http500'
    try {
      const failed = await get('/api/domains/fault-500.example')
      expect(failed.status).toBe(502)
      expect(failed.body.error.code).toBe('upstream_failed')
      fault = 'hang'
      const timedOut = await get('/api/domains/fault-timeout.example')
      expect(timedOut.status).toBe(504)
      expect(timedOut.body.error).toMatchObject({ code: 'upstream_timeout', message: 'DNS resolver did not answer within 1500 ms; try again shortly.' })
    } finally {
      fault = null
    }
    const health = await fetch(`${app.url}/api/health`)
    expect(health.status).toBe(200)
    const again = await get('/api/domains/weak.example')
    expect(again.status).toBe(200)
  })
})
