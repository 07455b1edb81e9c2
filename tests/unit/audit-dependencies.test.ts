import { describe, expect, it } from 'vitest'
import { auditVerdict } from '../../scripts/audit-dependencies.mjs'

// The advisory check's reading of `npm audit --json`: high and critical advisories fail with a
// line each, lower ones are listed, and an unreachable advisory source is told apart from a clean
// report (it must never read as "no advisories").

const report = {
  auditReportVersion: 2,
  vulnerabilities: {
    'next-mdx': {
      name: 'next-mdx',
      severity: 'moderate',
      via: ['esbuild'],
      range: '<2.0.0',
      fixAvailable: true,
    },
    esbuild: {
      name: 'esbuild',
      severity: 'moderate',
      via: [
        {
          source: 1102341,
          name: 'esbuild',
          title: 'esbuild dev server answers any origin',
          url: 'https://github.com/advisories/GHSA-67mh-4wv8-2f99',
          severity: 'moderate',
        },
      ],
      range: '<=0.24.2',
      fixAvailable: { name: 'esbuild', version: '0.25.0' },
    },
    undici: {
      name: 'undici',
      severity: 'high',
      via: [
        {
          source: 1,
          name: 'undici',
          title: 'Proxy-Authorization kept across origins',
          url: 'https://github.com/advisories/GHSA-m4v8-wqvr-p9f7',
          severity: 'high',
        },
      ],
      range: '<6.21.1',
      fixAvailable: false,
    },
  },
  metadata: { vulnerabilities: { info: 0, low: 0, moderate: 2, high: 1, critical: 0, total: 3 }, dependencies: { total: 812 } },
}

describe('auditVerdict', () => {
  it('fails on high and critical advisories and lists the lower ones', () => {
    expect(auditVerdict(report)).toEqual({
      kind: 'checked',
      failing: ['high     undici <6.21.1: Proxy-Authorization kept across origins (https://github.com/advisories/GHSA-m4v8-wqvr-p9f7); no fix yet'],
      other: [
        'moderate next-mdx <2.0.0: through esbuild; fix: npm audit fix',
        'moderate esbuild <=0.24.2: esbuild dev server answers any origin (https://github.com/advisories/GHSA-67mh-4wv8-2f99); fix: esbuild@0.25.0',
      ],
      total: 812,
    })
  })

  it('passes a report without advisories', () => {
    expect(auditVerdict({ ...report, vulnerabilities: {} })).toEqual({ kind: 'checked', failing: [], other: [], total: 812 })
  })

  it('tells an unreachable advisory source apart (a registry that answers the bulk endpoint 405)', () => {
    const error = {
      message: '405 Method Not Allowed - POST https://registry.example.test/-/npm/v1/security/advisories/bulk',
      method: 'POST',
      uri: 'https://registry.example.test/-/npm/v1/security/advisories/bulk',
      statusCode: 405,
      body: '',
      error: { summary: '', detail: '' },
    }
    expect(auditVerdict(error)).toEqual({ kind: 'unreachable', reason: error.message })
    expect(auditVerdict({ message: 'npm audit did not finish: spawnSync npm ETIMEDOUT' })).toMatchObject({ kind: 'unreachable' })
    expect(auditVerdict(null)).toMatchObject({ kind: 'unreachable' })
  })
})
