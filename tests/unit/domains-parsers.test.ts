import { describe, expect, it } from 'vitest'
import { isDmarcRecord, parseDmarc, rebuildDmarc, reportHost } from '@/lib/domains/checks/dmarc'
import { parseDkimKey } from '@/lib/domains/checks/dkim'
import { mxMatches, parseMtaStsPolicy, uncoveredHosts } from '@/lib/domains/checks/mta-sts'
import { isSpfRecord, parseSpf } from '@/lib/domains/checks/spf'
import { CHECK_NAMES, type CheckName, type CheckStatus } from '@/lib/domains/schemas'
import { CHECK_WEIGHTS, gradeOf, scoreChecks } from '@/lib/domains/score'
import { fixture } from '../../test-support/fake-upstream'

describe('SPF parser', () => {
  it('recognises only records that start exactly with v=spf1', () => {
    expect(isSpfRecord('v=spf1 -all')).toBe(true)
    expect(isSpfRecord('V=SPF1 -all')).toBe(true)
    expect(isSpfRecord('v=spf1')).toBe(true)
    expect(isSpfRecord(' v=spf1 -all')).toBe(false)
    expect(isSpfRecord('v=spf10 -all')).toBe(false)
    expect(isSpfRecord('google-site-verification=x')).toBe(false)
  })

  it('parses qualifiers, mechanisms, cidr suffixes and modifiers', () => {
    const p = parseSpf(
      'v=spf1 ip4:192.0.2.0/24 -ip6:2001:db8::/32 a mx:mail.example.com/24 ~include:_spf.example.net ?exists:%{i}.x.example redirect=_spf.example.com exp=explain.example.com -all',
    )
    expect(p.errors).toEqual([])
    expect(p.terms).toEqual([
      { kind: 'mechanism', qualifier: '+', mechanism: 'ip4', value: '192.0.2.0/24' },
      { kind: 'mechanism', qualifier: '-', mechanism: 'ip6', value: '2001:db8::/32' },
      { kind: 'mechanism', qualifier: '+', mechanism: 'a', value: null },
      { kind: 'mechanism', qualifier: '+', mechanism: 'mx', value: 'mail.example.com' },
      { kind: 'mechanism', qualifier: '~', mechanism: 'include', value: '_spf.example.net' },
      { kind: 'mechanism', qualifier: '?', mechanism: 'exists', value: '%{i}.x.example' },
      { kind: 'mechanism', qualifier: '-', mechanism: 'all', value: null },
    ])
    expect(p.modifiers).toEqual([
      { name: 'redirect', value: '_spf.example.com' },
      { name: 'exp', value: 'explain.example.com' },
    ])
  })

  it.each([
    ['v=spf1 foo:bar -all', /unknown term "foo:bar"/],
    ['v=spf1 include: -all', /needs a value/],
    ['v=spf1 all:x', /takes no value/],
    ['v=spf1 redirect=a.example redirect=b.example', /more than once/],
  ])('reports syntax errors in %j', (record, error) => {
    expect(parseSpf(record).errors.join('; ')).toMatch(error)
  })
})

describe('DMARC tags (RFC 9989)', () => {
  it('recognises v=DMARC1 first, in any case and spacing', () => {
    expect(isDmarcRecord('v=DMARC1; p=reject')).toBe(true)
    expect(isDmarcRecord('v = DMARC1 ;p=none')).toBe(true)
    expect(isDmarcRecord('v=DMARC1')).toBe(true)
    expect(isDmarcRecord('p=reject; v=DMARC1')).toBe(false)
    expect(isDmarcRecord('v=DMARC2; p=reject')).toBe(false)
  })

  it('parses every tag, with p anywhere after v', () => {
    const d = parseDmarc(
      'v=DMARC1; rua=mailto:a@example.com, mailto:b@example.net; np=reject; t=y; psd=n; sp=quarantine; p=reject; adkim=s; aspf=r; fo=1; ruf=mailto:f@example.com',
    )
    expect(d.tags).toEqual({
      p: 'reject',
      sp: 'quarantine',
      np: 'reject',
      psd: 'n',
      t: 'y',
      adkim: 's',
      aspf: 'r',
      fo: '1',
      rua: ['mailto:a@example.com', 'mailto:b@example.net'],
      ruf: ['mailto:f@example.com'],
    })
    expect(d.policy).toBe('reject')
    expect(d.testing).toBe(true)
    expect(d.errors).toEqual([])
    expect(d.warnings).toEqual([])
  })

  it('warns on the removed pct, rf and ri tags', () => {
    const d = parseDmarc('v=DMARC1; p=quarantine; pct=25; rf=afrf; ri=3600')
    expect(d.warnings).toEqual([
      '"pct=25" was removed in RFC 9989 and is ignored by receivers that follow it',
      '"rf=afrf" was removed in RFC 9989 and is ignored by receivers that follow it',
      '"ri=3600" was removed in RFC 9989 and is ignored by receivers that follow it',
      'pct=25: older receivers apply the policy to only part of the mail',
    ])
    expect(d.policy).toBe('quarantine')
  })

  it('treats a missing or invalid p as none, with a warning', () => {
    expect(parseDmarc('v=DMARC1; rua=mailto:a@example.com')).toMatchObject({ policy: 'none', warnings: ['no "p" tag: treated as p=none'] })
    expect(parseDmarc('v=DMARC1; p=block')).toMatchObject({ policy: 'none', warnings: ['p=block is not none, quarantine or reject: treated as p=none'] })
  })

  it('ignores unknown tags and flags invalid values and obsolete size limits', () => {
    const d = parseDmarc('v=DMARC1; p=reject; foo=bar; adkim=x; np=deny; t=maybe; psd=q; rua=mailto:a@example.com!10m')
    expect(d.warnings).toContain('unknown tag "foo" is ignored')
    expect(d.warnings).toContain('size limit "!…" on "mailto:a@example.com!10m" is obsolete in RFC 9989')
    expect(d.errors).toEqual(['np=deny is not none, quarantine or reject', 'adkim=x must be r or s', 't=maybe must be y or n', 'psd=q must be y, n or u'])
  })

  it('rebuilds a stronger record without removed tags and keeps the rest in order', () => {
    const d = parseDmarc('v=DMARC1; p=none; pct=50; rua=mailto:d@example.com; t=y; adkim=s')
    expect(rebuildDmarc(d.pairs, 'quarantine')).toBe('v=DMARC1; p=quarantine; rua=mailto:d@example.com; adkim=s')
  })

  it('takes the host of report URIs', () => {
    expect(reportHost('mailto:dmarc@Reports.Example.NET!10m')).toBe('reports.example.net')
    expect(reportHost('https://collector.example/dmarc')).toBe('collector.example')
    expect(reportHost('nonsense')).toBeNull()
  })
})

describe('MTA-STS policy parsing (recorded policies)', () => {
  it.each([
    ['301guru-none-mode-mx.microsoft.txt', 'none', 600, ['c365-biz.p-v1.mx.microsoft', 'c365-biz.mail.protection.outlook.com']],
    ['alexvernon-testing-mode-mx-trailing-dot.txt', 'testing', 604800, ['mail.tutanota.de']],
    [
      'andromedasecuritizadora-enforce-google-plus-zoho.txt',
      'enforce',
      86400,
      [
        'aspmx.l.google.com',
        'alt1.aspmx.l.google.com',
        'alt2.aspmx.l.google.com',
        'alt3.aspmx.l.google.com',
        'alt4.aspmx.l.google.com',
        'mx.zoho.com',
        'mx2.zoho.com',
        'mx3.zoho.com',
      ],
    ],
    ['boldmere.bham.sch.uk-enforce-exchange-online.txt', 'enforce', 1209600, ['boldmere-bham-sch-uk.mail.protection.outlook.com']],
    ['mta-sts.adisa.org.uk-enforce-max_age-before-mx-CRLF.txt', 'enforce', 1209600, ['mailserver.adisa.org.uk']],
    [
      'mta-sts.as213151.net-enforce-google-6mx.txt',
      'enforce',
      604800,
      ['alt1.aspmx.l.google.com', 'alt3.aspmx.l.google.com', 'alt4.aspmx.l.google.com', 'alt2.aspmx.l.google.com', 'aspmx.l.google.com', 'smtp.google.com'],
    ],
    [
      'mta-sts.febit.eu-enforce-wildcard-mx.txt',
      'enforce',
      2419200,
      ['*.febit.eu', 'mxext1.mailbox.org', 'mxext2.mailbox.org', 'mxext3.mailbox.org', 'mx1.forwardemail.net', 'mx2.forwardemail.net'],
    ],
    ['mta-sts.sbcountyatc.gov-enforce-exchange-online.txt', 'enforce', 604800, ['sbcountyatc-gov.mail.protection.outlook.com']],
  ])('%s', (file, mode, maxAge, mx) => {
    const { policy, errors } = parseMtaStsPolicy(fixture(`mta-sts/${file}`))
    expect(errors).toEqual([])
    expect(policy).toEqual({ version: 'STSv1', mode, maxAge, mx })
  })

  it('keeps the CRLF sample free of carriage returns', () => {
    const text = fixture('mta-sts/mta-sts.adisa.org.uk-enforce-max_age-before-mx-CRLF.txt')
    expect(text).toContain('\r\n')
    expect(parseMtaStsPolicy(text).policy.mx[0]).toBe('mailserver.adisa.org.uk')
  })

  it.each([
    ['mode: enforce\nmx: a.example\nmax_age: 86400', /no "version: STSv1" line/],
    ['version: STSv1\nmode: strict\nmx: a.example\nmax_age: 86400', /mode "strict"/],
    ['version: STSv1\nmode: enforce\nmx: a.example\nmax_age: 99999999999', /max_age/],
    ['version: STSv1\nmode: enforce\nmax_age: 86400', /no "mx" line/],
    ['version: STSv1\nmode: enforce\nmx: mx.*.example\nmax_age: 86400', /wildcard/],
  ])('rejects a broken policy (%#)', (text, error) => {
    expect(parseMtaStsPolicy(text).errors.join('; ')).toMatch(error)
  })

  it('ignores unknown keys', () => {
    expect(parseMtaStsPolicy('version: STSv1\nfoo: bar\nmode: enforce\nmx: a.example\nmax_age: 86400').errors).toEqual([])
  })
})

describe('MX coverage by policy patterns', () => {
  it.each([
    ['*.febit.eu', 'mx1.febit.eu', true],
    ['*.febit.eu', 'MX1.FEBIT.EU.', true],
    ['*.febit.eu', 'febit.eu', false],
    ['*.febit.eu', 'a.mx1.febit.eu', false],
    ['*.febit.eu', 'mx1.notfebit.eu', false],
    ['mail.tutanota.de.', 'mail.tutanota.de', true],
    ['*.mail.protection.outlook.com', 'contoso-com.mail.protection.outlook.com', true],
    ['aspmx.l.google.com', 'alt1.aspmx.l.google.com', false],
  ])('%s vs %s → %s', (pattern, host, expected) => {
    expect(mxMatches(pattern, host)).toBe(expected)
  })

  it('lists the MX hosts a recorded policy does not cover', () => {
    const { policy } = parseMtaStsPolicy(fixture('mta-sts/mta-sts.febit.eu-enforce-wildcard-mx.txt'))
    expect(uncoveredHosts(policy.mx, ['mx1.febit.eu', 'mxext2.mailbox.org', 'mx3.forwardemail.net', 'deep.mx.febit.eu'])).toEqual([
      'mx3.forwardemail.net',
      'deep.mx.febit.eu',
    ])
  })
})

describe('DKIM key records', () => {
  it('reads type and size, revocation and test mode', () => {
    expect(parseDkimKey('v=DKIM1; p=')).toMatchObject({ revoked: true, valid: true, keyBits: null })
    expect(parseDkimKey('v=DKIM1; k=rsa; t=y:s; p=AAAA')).toMatchObject({ testing: true, valid: false, keyBits: null })
    expect(parseDkimKey('v=DKIM2; p=AAAA')).toMatchObject({ valid: false })
    expect(parseDkimKey('k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=')).toMatchObject({ keyType: 'ed25519', keyBits: 256, valid: true })
  })
})

describe('score', () => {
  const all = (status: CheckStatus) => Object.fromEntries(CHECK_NAMES.map((n) => [n, status])) as Record<CheckName, CheckStatus>

  it('has weights that sum to 100 and leaves BIMI out', () => {
    expect(Object.values(CHECK_WEIGHTS).reduce((a, b) => a + b, 0)).toBe(100)
    expect(CHECK_WEIGHTS.bimi).toBe(0)
  })

  it.each([
    ['pass', 100, 'A'],
    ['warn', 50, 'D'],
    ['fail', 0, 'F'],
    ['not_found', 0, 'F'],
  ] as const)('all %s → %i (%s)', (status, score, grade) => {
    expect(scoreChecks(all(status))).toEqual({ score, grade })
  })

  it('gives warn half the weight and leaves info out of the total', () => {
    const s = { ...all('pass'), dmarc: 'warn' as const, spf: 'fail' as const }
    expect(scoreChecks(s).score).toBe(Math.round(100 - 12.5 - 20))
    const na = { ...all('pass'), mtaSts: 'info' as const, tlsRpt: 'info' as const, dane: 'info' as const, dkim: 'fail' as const }
    expect(scoreChecks(na).score).toBe(Math.round((100 * (80 - 10)) / 80))
    expect(scoreChecks(all('info'))).toEqual({ score: 0, grade: 'F' })
  })

  it('grades at the documented thresholds', () => {
    expect([90, 89, 75, 74, 60, 59, 40, 39].map(gradeOf)).toEqual(['A', 'B', 'B', 'C', 'C', 'D', 'D', 'F'])
  })
})
