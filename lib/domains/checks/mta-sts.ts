import { lookupTxt, parseTagList, type Dns } from '@/lib/domains/dns'
import type { MtaStsCheck, MtaStsPolicy } from '@/lib/domains/schemas'
import type { PolicyFetch } from '@/lib/domains/upstream'

// MTA-STS (RFC 8461): the `_mta-sts` TXT record with its `id`, and the policy file: `key: value`
// lines with CRLF or LF endings, keys in any order, unknown keys ignored, `mx` repeated.

export const MAX_AGE_LIMIT = 31_557_600
const MIN_SENSIBLE_MAX_AGE = 86_400

export const isMtaStsRecord = (txt: string) => /^v=STSv1\s*(;|$)/.test(txt.trim())

export function parseMtaStsPolicy(text: string): { policy: MtaStsPolicy; errors: string[] } {
  const policy: MtaStsPolicy = { version: null, mode: null, maxAge: null, mx: [] }
  const errors: string[] = []
  for (const line of text.split(/\r?\n/)) {
    const m = /^([A-Za-z0-9_]+)[ \t]*:[ \t]*(.*?)[ \t]*$/.exec(line)
    if (!m) continue
    const [, key, value] = m
    if (key === 'version') policy.version = value
    else if (key === 'mode') {
      if (value === 'enforce' || value === 'testing' || value === 'none') policy.mode = value
      else errors.push(`mode "${value}" is not enforce, testing or none`)
    } else if (key === 'max_age') {
      if (/^[0-9]{1,10}$/.test(value) && Number(value) <= MAX_AGE_LIMIT) policy.maxAge = Number(value)
      else errors.push(`max_age "${value}" is not a number of seconds up to ${MAX_AGE_LIMIT}`)
    } else if (key === 'mx') policy.mx.push(value.toLowerCase().replace(/\.$/, ''))
  }
  if (policy.version !== 'STSv1') errors.push(policy.version === null ? 'no "version: STSv1" line' : `version "${policy.version}" is not STSv1`)
  if (policy.mode === null && !errors.some((e) => e.startsWith('mode'))) errors.push('no "mode" line')
  if (policy.maxAge === null && !errors.some((e) => e.startsWith('max_age'))) errors.push('no "max_age" line')
  if (policy.mx.length === 0 && policy.mode !== 'none') errors.push('no "mx" line')
  for (const mx of policy.mx) if (mx.includes('*') && !/^\*\.[^*]+$/.test(mx)) errors.push(`mx "${mx}": a wildcard may only be the whole leftmost label`)
  return { policy, errors }
}

/** RFC 8461 §4.1: `*.example.com` matches exactly one extra leftmost label. */
export function mxMatches(pattern: string, host: string): boolean {
  const p = pattern.toLowerCase().replace(/\.$/, '')
  const h = host.toLowerCase().replace(/\.$/, '')
  if (p.startsWith('*.')) {
    const dot = h.indexOf('.')
    return dot > 0 && h.slice(dot + 1) === p.slice(2)
  }
  return p === h
}

export const uncoveredHosts = (patterns: string[], hosts: string[]) => hosts.filter((h) => !patterns.some((p) => mxMatches(p, h)))

export async function checkMtaSts(dns: Dns, domain: string, mxHosts: string[], fetchPolicy: (domain: string) => Promise<PolicyFetch>): Promise<MtaStsCheck> {
  const { values } = await lookupTxt(dns, `_mta-sts.${domain}`)
  const txt = values.filter(isMtaStsRecord)
  const none = { record: null, id: null, policyUrl: null, policy: null, uncoveredMxHosts: [] }
  const policyTemplate = ['version: STSv1', 'mode: testing', ...(mxHosts.length ? mxHosts : ['<your MX host>']).map((h) => `mx: ${h}`), 'max_age: 604800'].join(
    '\n',
  )
  if (txt.length === 0) {
    return {
      ...none,
      records: [],
      warnings: [],
      status: 'not_found',
      detail: 'No MTA-STS record: senders may deliver mail to this domain without verified TLS.',
      recommendation: {
        action: `Serve this policy at https://mta-sts.${domain}/.well-known/mta-sts.txt (text/plain): "${policyTemplate.replaceAll('\n', '\\n')}", then publish the TXT record; move to mode: enforce once TLS reports are clean.`,
        record: { name: `_mta-sts.${domain}`, type: 'TXT', value: `v=STSv1; id=${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}` },
      },
    }
  }
  if (txt.length > 1) {
    const w = `${txt.length} v=STSv1 records at _mta-sts.${domain}; senders treat that as no policy (RFC 8461 §3.1).`
    return { ...none, records: txt, warnings: [w], status: 'fail', detail: w, recommendation: { action: 'Keep exactly one v=STSv1 record.', record: null } }
  }
  const record = txt[0]
  const id = parseTagList(record).find((t) => t.tag === 'id')?.value ?? null
  const warnings: string[] = []
  if (!id) warnings.push('The TXT record has no id; senders ignore a policy record without one.')
  else if (!/^[A-Za-z0-9]{1,32}$/.test(id)) warnings.push(`id "${id}" must be 1-32 letters and digits.`)

  const fetched = await fetchPolicy(domain)
  const base = { record, id, policyUrl: fetched.url, records: [record] }
  if (!fetched.ok) {
    warnings.unshift(`The policy could not be fetched from ${fetched.url}: ${fetched.reason}.`)
    return {
      ...base,
      policy: null,
      uncoveredMxHosts: [],
      warnings,
      status: 'fail',
      detail: warnings[0],
      recommendation: {
        action: `Serve the policy over HTTPS with a valid certificate for mta-sts.${domain}, status 200 and Content-Type text/plain, without redirects.`,
        record: null,
      },
    }
  }
  const { policy, errors } = parseMtaStsPolicy(fetched.text)
  const uncovered = policy.mode === 'none' ? [] : uncoveredHosts(policy.mx, mxHosts)
  warnings.unshift(...errors.map((e) => `Policy: ${e}.`))
  if (uncovered.length) warnings.push(`MX host${uncovered.length > 1 ? 's' : ''} not matched by any policy mx pattern: ${uncovered.join(', ')}.`)
  if (policy.mode === 'testing') warnings.push('mode: testing; senders report failures but still deliver without TLS.')
  if (policy.mode === 'none') warnings.push('mode: none; the policy is being withdrawn and protects nothing.')
  if (policy.maxAge !== null && policy.maxAge < MIN_SENSIBLE_MAX_AGE)
    warnings.push(`max_age ${policy.maxAge} s is short; a week or more (604800) is recommended.`)

  const broken = errors.length > 0 || !id || (policy.mode === 'enforce' && uncovered.length > 0)
  const status = broken ? 'fail' : warnings.length ? 'warn' : 'pass'
  const fixedPolicy = [
    'version: STSv1',
    'mode: enforce',
    ...[...new Set([...policy.mx, ...uncovered])].map((m) => `mx: ${m}`),
    `max_age: ${Math.max(policy.maxAge ?? 0, 604800)}`,
  ].join('\\n')
  return {
    ...base,
    policy,
    uncoveredMxHosts: uncovered,
    warnings,
    status,
    detail: status === 'pass' ? `MTA-STS enforced for ${mxHosts.length} MX host${mxHosts.length === 1 ? '' : 's'}, max_age ${policy.maxAge} s.` : warnings[0],
    recommendation:
      status === 'pass'
        ? null
        : !id
          ? {
              action: 'Add an id to the MTA-STS record (change it whenever the policy changes).',
              record: { name: `_mta-sts.${domain}`, type: 'TXT', value: `v=STSv1; id=${new Date().toISOString().replace(/\D/g, '').slice(0, 14)}` },
            }
          : { action: `Serve this policy: "${fixedPolicy}", then change the id of the TXT record so senders fetch it again.`, record: null },
  }
}
