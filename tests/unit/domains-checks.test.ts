import { afterAll, describe, expect, it } from 'vitest'
import { loadZones } from '../../test-support/dns-zones'
import { startFakeDoh } from '../../test-support/fake-doh'
import { fixture } from '../../test-support/fake-upstream'

// The checks against a loopback DoH server answering from the zone fixtures, through the real
// resolver (which reads DOH_URL at import, so the server starts first).
const doh = await startFakeDoh(loadZones('well-configured', 'providers', 'weak', 'platform', 'spf-trees', 'dkim', 'mx'))
process.env.DOH_URL = doh.url
const { resolve } = await import('@/lib/dns/resolver')
const { evaluateSpf, checkSpf } = await import('@/lib/domains/checks/spf')
const { checkDmarc } = await import('@/lib/domains/checks/dmarc')
const { checkDkim, COMMON_SELECTORS } = await import('@/lib/domains/checks/dkim')
const { checkMtaSts } = await import('@/lib/domains/checks/mta-sts')
const { checkCaa } = await import('@/lib/domains/checks/caa')
const { checkMx } = await import('@/lib/domains/checks/mx')
const { checkDane } = await import('@/lib/domains/checks/dane')
const { checkDomainHealth, listPlatformDomains } = await import('@/lib/domains/service')
const dns = { resolve }

afterAll(() => doh.close())

const policy = (file: string) => async (domain: string) => ({
  ok: true as const,
  url: `https://mta-sts.${domain}/.well-known/mta-sts.txt`,
  text: fixture(`mta-sts/${file}`),
})

describe('SPF lookup counter', () => {
  it('counts nested includes and mx/a terms, and shows the tree', async () => {
    const e = await evaluateSpf(dns, 'nested.example')
    expect(e.lookupCount).toBe(5) // root: include a, include b; a: include c, mx; b: a
    expect(e.tree.reduce((n, node) => n + node.lookups, 0)).toBe(5)
    expect(e.tree.map((n) => [n.domain, n.depth, n.via, n.lookups])).toEqual([
      ['nested.example', 0, 'root', 2],
      ['a.nested.example', 1, 'include', 2],
      ['c.nested.example', 2, 'include', 0],
      ['b.nested.example', 1, 'include', 1],
    ])
    expect(e.voidLookupCount).toBe(0)
    expect(e.allQualifier).toBe('-')
    expect(e.errors).toEqual([])
  })

  it('follows redirect for the lookups and the effective all', async () => {
    const e = await evaluateSpf(dns, 'redirect.example')
    expect(e.lookupCount).toBe(2)
    expect(e.tree.map((n) => n.via)).toEqual(['root', 'redirect', 'include'])
    expect(e.allQualifier).toBe('~')
  })

  it('counts void lookups and fails past two', async () => {
    const e = await evaluateSpf(dns, 'void.example')
    expect(e.voidLookupCount).toBe(3)
    expect(e.errors).toContain('3 void lookups; receivers stop at 2 (permerror)')
    const check = await checkSpf(dns, 'void.example', { acceptsMail: true })
    expect(check.status).toBe('fail')
  })

  it('fails a tree with more than 10 lookups', async () => {
    const e = await evaluateSpf(dns, 'many.example')
    expect(e.lookupCount).toBe(18) // 6 includes, each with a and mx
    const check = await checkSpf(dns, 'many.example', { acceptsMail: true })
    expect(check.status).toBe('fail')
    expect(check.detail).toBe('18 DNS-querying terms; receivers stop at 10 (permerror)')
    expect(check.recommendation?.action).toMatch(/10 or fewer/)
  })

  it.each([
    ['loop.example', 'fail', /include loop/],
    ['plusall.example', 'fail', /\+all/],
    ['noall.example', 'warn', /No "all" mechanism/],
    ['two.example', 'fail', /2 SPF records/],
    ['badinclude.example', 'fail', /nospf.example \(include\): no SPF record/],
    ['ptr.example', 'warn', /ptr/],
    ['macro.example', 'warn', /macros/],
  ])('%s → %s', async (domain, status, detail) => {
    const check = await checkSpf(dns, domain, { acceptsMail: true })
    expect(check.status).toBe(status)
    expect([check.detail, ...check.warnings].join(' | ')).toMatch(detail)
  })

  it('reports a missing record with the record to publish, and ignores one with leading space', async () => {
    const none = await checkSpf(dns, 'dkim-none.example', { acceptsMail: true })
    expect(none.status).toBe('not_found')
    expect(none.recommendation?.record).toEqual({ name: 'dkim-none.example', type: 'TXT', value: 'v=spf1 mx -all' })
    const spaced = await checkSpf(dns, 'space.example', { acceptsMail: false })
    expect(spaced.status).toBe('not_found')
    expect(spaced.warnings[0]).toMatch(/whitespace/)
    expect(spaced.recommendation?.record?.value).toBe('v=spf1 -all')
  })

  it('suggests -all in place of a weak all', async () => {
    const check = await checkSpf(dns, 'weak.example', { acceptsMail: true })
    expect(check.status).toBe('warn')
    expect(check.recommendation?.record).toEqual({ name: 'weak.example', type: 'TXT', value: 'v=spf1 a mx include:spf.mail-provider.example -all' })
  })
})

describe('DMARC check', () => {
  it('passes an enforcing record with an authorised external report address', async () => {
    const d = await checkDmarc(dns, 'febit.eu')
    expect(d).toMatchObject({ status: 'pass', policy: 'reject', inherited: false, policyDomain: 'febit.eu' })
    expect(d.reportDestinations).toEqual([
      { kind: 'rua', uri: 'mailto:dmarc@febit.eu', external: false, authorized: null },
      { kind: 'rua', uri: 'mailto:agg@dmarc-reports.example', external: true, authorized: true },
    ])
  })

  it('warns on p=none, removed pct and an unauthorised external address', async () => {
    const d = await checkDmarc(dns, 'weak.example')
    expect(d.status).toBe('warn')
    expect(d.policy).toBe('none')
    expect(d.reportDestinations[0]).toMatchObject({ external: true, authorized: false })
    expect(d.warnings.join(' | ')).toMatch(/pct=50/)
    expect(d.warnings.join(' | ')).toMatch(/reports.other.example has not authorised reports for weak.example/)
    expect(d.recommendation?.record).toEqual({
      name: '_dmarc.weak.example',
      type: 'TXT',
      value: 'v=DMARC1; p=quarantine; rua=mailto:dmarc@reports.other.example',
    })
  })

  it('finds the organisational record by the tree walk and applies sp', async () => {
    const d = await checkDmarc(dns, 'mx1.febit.eu')
    expect(d).toMatchObject({ status: 'pass', inherited: true, policyDomain: 'febit.eu', policy: 'reject' })
    expect(d.detail).toMatch(/inherited from _dmarc.febit.eu/)
  })

  it('reports not_found with a record to publish', async () => {
    const d = await checkDmarc(dns, 'dkim-none.example')
    expect(d.status).toBe('not_found')
    expect(d.recommendation?.record?.name).toBe('_dmarc.dkim-none.example')
  })
})

describe('DKIM probe', () => {
  it('finds keys under common and caller selectors, following CNAMEs', async () => {
    const d = await checkDkim(dns, 'dkim-good.example', ['custom'])
    expect(d.status).toBe('pass')
    expect(d.selectorsProbed).toEqual(['custom', ...COMMON_SELECTORS])
    expect(d.keys.map((k) => [k.selector, k.keyType, k.keyBits])).toEqual([
      ['custom', 'ed25519', 256],
      ['google', 'rsa', 2048],
    ])
    const m365 = await checkDkim(dns, 'febit.eu')
    expect(m365.keys[0]).toMatchObject({ selector: 'selector1', cname: 'selector1-febit-eu._domainkey.febit.onmicrosoft.example', keyBits: 2048 })
  })

  it('flags weak, test-mode and revoked keys', async () => {
    const weak = await checkDkim(dns, 'dkim-weak.example')
    expect(weak.status).toBe('warn')
    expect(weak.warnings).toEqual([
      'k1: 512-bit RSA key; receivers reject keys under 1024 bits.',
      's1: 1024-bit RSA key; 2048 bits is recommended.',
      's1: t=y, the key is in test mode and receivers may ignore failures.',
    ])
    const revoked = await checkDkim(dns, 'dkim-revoked.example')
    expect(revoked).toMatchObject({ status: 'warn', detail: 'default: the key is revoked (empty p=).' })
  })

  it('reports a dangling Microsoft 365 CNAME', async () => {
    const d = await checkDkim(dns, 'dkim-m365.example')
    expect(d.status).toBe('warn')
    expect(d.detail).toMatch(/selector1 is delegated to selector1-dkim-m365-example._domainkey.tenant.onmicrosoft.example, which publishes no key/)
  })

  it('tells "exists under other selectors" (NOERROR) from "nothing published" (NXDOMAIN)', async () => {
    const hidden = await checkDkim(dns, 'dkim-hidden.example')
    expect(hidden).toMatchObject({ status: 'info', domainKeyNodeExists: true, keys: [] })
    expect(hidden.detail).toMatch(/^No DKIM key found among the 16 probed selectors, but names exist under _domainkey/)
    const found = await checkDkim(dns, 'dkim-hidden.example', ['unguessable2025'])
    expect(found.status).toBe('pass')
    const none = await checkDkim(dns, 'dkim-none.example')
    expect(none).toMatchObject({ status: 'not_found', domainKeyNodeExists: false })
    expect(none.detail).toMatch(/not found among|No DKIM key found among/)
    expect(JSON.stringify([hidden, none])).not.toMatch(/missing/i)
  })
})

describe('MTA-STS check', () => {
  it('passes an enforced policy whose wildcard covers the MX hosts', async () => {
    const m = await checkMtaSts(dns, 'febit.eu', ['mx1.febit.eu', 'mx2.febit.eu'], policy('mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(m).toMatchObject({ status: 'pass', id: '20240101000000', uncoveredMxHosts: [], recommendation: null })
    expect(m.policy?.mode).toBe('enforce')
  })

  it('fails an enforced policy that leaves an MX host uncovered', async () => {
    const m = await checkMtaSts(dns, 'febit.eu', ['mx1.febit.eu', 'mx.other.example'], policy('mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(m.status).toBe('fail')
    expect(m.uncoveredMxHosts).toEqual(['mx.other.example'])
  })

  it('warns on testing mode and fails when the policy cannot be fetched', async () => {
    const testing = await checkMtaSts(dns, 'weak.example', ['mail.tutanota.de'], policy('alexvernon-testing-mode-mx-trailing-dot.txt'))
    expect(testing).toMatchObject({ status: 'warn', uncoveredMxHosts: [] })
    const broken = await checkMtaSts(dns, 'weak.example', ['mail.tutanota.de'], async (d) => ({
      ok: false,
      url: `https://mta-sts.${d}/x`,
      reason: 'HTTP 301 redirect',
    }))
    expect(broken.status).toBe('fail')
    expect(broken.detail).toMatch(/could not be fetched.*HTTP 301/)
  })

  it('reports not_found with the TXT record to publish', async () => {
    const m = await checkMtaSts(dns, 'platform.example', ['mx.platform.example'], policy('mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(m.status).toBe('not_found')
    expect(m.recommendation?.record?.name).toBe('_mta-sts.platform.example')
    expect(m.recommendation?.record?.value).toMatch(/^v=STSv1; id=\d{14}$/)
  })
})

describe('MX', () => {
  it.each([
    ['febit.eu', 'pass', /2 MX hosts, all resolving/],
    ['platform.example', 'pass', /Null MX/],
    ['mx-mixed.example', 'fail', /null MX must be the only MX record/],
    ['mx-none.example', 'warn', /fall back to the address records/],
    ['mx-nothing.example', 'not_found', /cannot receive mail/],
    ['mx-alias.example', 'warn', /CNAME, which RFC 2181/],
    ['mx-dead.example', 'fail', /without an A\/AAAA address: dead.mx-dead.example/],
    ['mx-ip.example', 'fail', /not an IP address: 192.0.2.61/],
  ])('%s → %s', async (domain, status, detail) => {
    const check = await checkMx(dns, domain, await resolve(domain, 'MX'))
    expect(check.status).toBe(status)
    expect(check.detail).toMatch(detail)
  })

  it('offers a null MX when the domain has no mail hosts', async () => {
    const check = await checkMx(dns, 'mx-nothing.example', await resolve('mx-nothing.example', 'MX'))
    expect(check.recommendation?.record).toEqual({ name: 'mx-nothing.example', type: 'MX', value: '0 .' })
  })
})

describe('DANE', () => {
  it('counts TLSA only with DNSSEC', async () => {
    const signed = await checkDane(dns, ['mx1.febit.eu', 'mx2.febit.eu'])
    expect(signed.status).toBe('pass')
    expect(signed.hosts[0]).toEqual({
      host: 'mx1.febit.eu',
      tlsa: ['3 1 1 22c4614379ba19952941fbd8981a3cd6c0188e25b47d46269166e4acae5cad19'],
      authenticated: true,
    })
    const unsigned = await checkDane(dns, ['mx.dane-unsigned.example'])
    expect(unsigned.status).toBe('fail')
    expect(unsigned.detail).toMatch(/without DNSSEC validation is ignored/)
    const partly = await checkDane(dns, ['mx1.febit.eu', 'mail.tutanota.de'])
    expect(partly).toMatchObject({ status: 'warn', detail: 'MX hosts without TLSA: mail.tutanota.de.' })
  })
})

describe('CAA', () => {
  it('walks up to the closest set', async () => {
    const own = await checkCaa(dns, 'febit.eu')
    expect(own).toMatchObject({ status: 'pass', foundAt: 'febit.eu', issuers: ['letsencrypt.org'], iodef: ['mailto:security@febit.eu'] })
    const inherited = await checkCaa(dns, 'mx1.febit.eu')
    expect(inherited).toMatchObject({ status: 'pass', foundAt: 'febit.eu' })
    expect(inherited.detail).toMatch(/inherited from febit.eu/)
  })
})

describe('health report', () => {
  const deps = (file: string) => ({ dns, fetchPolicy: policy(file), budgetMs: 5000 })

  it('scores a well-configured domain 100', async () => {
    const r = await checkDomainHealth({ domain: 'FEBIT.eu.' }, deps('mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(r.domain).toBe('febit.eu')
    expect(Object.fromEntries(Object.entries(r.checks).map(([k, v]) => [k, v.status]))).toEqual({
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
    expect(r).toMatchObject({ score: 100, grade: 'A', recommendations: [], mxRecords: ['10 mx1.febit.eu', '20 mx2.febit.eu'], dmarcPolicy: 'reject' })
    expect(r.authoritativeNameServers).toEqual(['ns1.dns-host.example', 'ns2.dns-host.example'])
  })

  it('marks checks that do not apply to a null-MX domain as info', async () => {
    const r = await checkDomainHealth({ domain: 'platform.example' }, deps('mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(r.checks.mx).toMatchObject({ status: 'pass', nullMx: true })
    expect([r.checks.mtaSts.status, r.checks.tlsRpt.status, r.checks.dane.status]).toEqual(['info', 'info', 'info'])
    expect(r.checks.spf.status).toBe('pass')
    expect(r.checks.dkim).toMatchObject({ status: 'info', recommendation: null })
    expect(r.checks.dkim.detail).toMatch(/^Not applicable: SPF authorises no sender/)
  })

  it('turns a failing lookup into an info check and keeps the rest', async () => {
    const r = await checkDomainHealth({ domain: 'partial.example' }, deps('alexvernon-testing-mode-mx-trailing-dot.txt'))
    expect(r.checks.dmarc).toMatchObject({ status: 'info', detail: 'Not checked: the TXT lookup of _dmarc.partial.example failed (SERVFAIL).' })
    expect(r.checks.spf.status).toBe('pass')
  })

  it('reports checks still running when the budget runs out as info', async () => {
    const stalled = {
      resolve: (name: string, type: Parameters<typeof resolve>[1]) => (name.startsWith('_dmarc.') ? new Promise<never>(() => {}) : resolve(name, type)),
    }
    const r = await checkDomainHealth({ domain: 'weak.example' }, { ...deps('alexvernon-testing-mode-mx-trailing-dot.txt'), dns: stalled, budgetMs: 300 })
    expect(r.checks.dmarc).toMatchObject({ status: 'info', detail: 'Not checked: the lookups did not finish within the 0.3 s budget.' })
    expect(r.checks.bimi.status).toBe('info')
    expect(r.checks.spf.status).toBe('warn')
    expect(r.dmarcPolicy).toBeNull()
  })

  it('answers 404 for a name that does not exist and 400 for an invalid one', async () => {
    await expect(checkDomainHealth({ domain: 'nothing-here.example' }, deps('x'))).rejects.toMatchObject({ code: 'not_found' })
    await expect(checkDomainHealth({ domain: 'bad_name.example' }, deps('x'))).rejects.toMatchObject({ code: 'invalid_input' })
  })
})

describe('platform domain list', () => {
  it('reads the data file when PLATFORM_DOMAINS is unset and reports per-domain failures', async () => {
    const list = await listPlatformDomains({ dns })
    expect(list.source).toBe('data file')
    expect(list.domains.map((d) => d.domain)).toEqual(['example.com', 'example.net', 'example.org'])
    // None of them is in the test zones: each is reported as nonexistent rather than failing the list.
    expect(list.domains.every((d) => d.error === `${d.domain} does not exist in DNS (NXDOMAIN).`)).toBe(true)
  })
})
