import { lookup, lookupTxt, type Dns } from '@/lib/domains/dns'
import type { SpfCheck, SpfNode } from '@/lib/domains/schemas'

// SPF (RFC 7208): one `v=spf1` record, parsed; the include/redirect tree walked with every
// DNS-querying term counted (≤ 10, §4.6.4) and void lookups counted (≤ 2); the effective `all`.

export const SPF_LOOKUP_LIMIT = 10
export const SPF_VOID_LIMIT = 2
/** Stop descending once the count is this far past the limit: the verdict cannot change. */
const WALK_CAP = 2 * SPF_LOOKUP_LIMIT
const MAX_DEPTH = 10

export type Qualifier = '+' | '-' | '~' | '?'
export type Mechanism = 'all' | 'include' | 'a' | 'mx' | 'ptr' | 'ip4' | 'ip6' | 'exists'

export interface SpfTerm {
  kind: 'mechanism'
  qualifier: Qualifier
  mechanism: Mechanism
  /** Domain-spec or address, without the dual-cidr suffix; null when absent. */
  value: string | null
}

export interface ParsedSpf {
  terms: SpfTerm[]
  modifiers: { name: string; value: string }[]
  errors: string[]
}

const MECHANISMS = new Set<Mechanism>(['all', 'include', 'a', 'mx', 'ptr', 'ip4', 'ip6', 'exists'])
const COUNTED = new Set<Mechanism>(['include', 'a', 'mx', 'ptr', 'exists'])
const MODIFIER = /^([a-z][a-z0-9_.-]*)=(.*)$/i

/** RFC 7208 §4.5: the record starts exactly with `v=spf1` followed by a space or its end. */
export const isSpfRecord = (txt: string) => /^v=spf1( |$)/i.test(txt)

export function parseSpf(record: string): ParsedSpf {
  const out: ParsedSpf = { terms: [], modifiers: [], errors: [] }
  for (const token of record.trim().split(/ +/).slice(1)) {
    const modifier = MODIFIER.exec(token)
    if (modifier && !token.includes(':')) {
      const name = modifier[1].toLowerCase()
      if (out.modifiers.some((m) => m.name === name) && (name === 'redirect' || name === 'exp')) out.errors.push(`"${name}" appears more than once`)
      out.modifiers.push({ name, value: modifier[2] })
      continue
    }
    const qualifier = '+-~?'.includes(token[0]) ? (token[0] as Qualifier) : '+'
    const body = '+-~?'.includes(token[0]) ? token.slice(1) : token
    const m = /^([a-z0-9]+)(?:([:/])(.*))?$/i.exec(body)
    const name = m?.[1].toLowerCase() as Mechanism | undefined
    if (!m || !name || !MECHANISMS.has(name)) {
      out.errors.push(`unknown term "${token}"`)
      continue
    }
    const raw = m[2] === ':' ? m[3] : null
    // a/mx take an optional dual-cidr-length; ip4/ip6 keep theirs as part of the network.
    const value = raw !== null && (name === 'a' || name === 'mx') ? raw.replace(/\/\/?\d+(?:\/\/\d+)?$/, '') : raw
    if ((name === 'include' || name === 'exists' || name === 'ip4' || name === 'ip6') && !value) out.errors.push(`"${token}" needs a value`)
    if (name === 'all' && m[2]) out.errors.push(`"${token}" takes no value`)
    out.terms.push({ kind: 'mechanism', qualifier, mechanism: name, value })
  }
  return out
}

export interface SpfEvaluation {
  record: string | null
  records: string[]
  lookupCount: number
  voidLookupCount: number
  allQualifier: Qualifier | null
  tree: SpfNode[]
  errors: string[]
  warnings: string[]
}

interface WalkState {
  lookups: number
  voids: number
  errors: string[]
  warnings: string[]
}

const hasMacro = (s: string) => s.includes('%')

async function isVoid(dns: Dns, name: string, type: 'A' | 'MX'): Promise<boolean> {
  if (type === 'MX') return (await lookup(dns, name, 'MX')).records.length === 0
  const [a, aaaa] = await Promise.all([lookup(dns, name, 'A'), lookup(dns, name, 'AAAA')])
  return a.records.length + aaaa.records.length === 0
}

async function walk(
  dns: Dns,
  domain: string,
  depth: number,
  via: SpfNode['via'],
  path: string[],
  state: WalkState,
): Promise<{ nodes: SpfNode[]; all: Qualifier | null; record: string | null; records: string[] }> {
  const node: SpfNode = { domain, depth, via, record: null, lookups: 0, error: null }
  const fail = (error: string) => {
    node.error = error
    state.errors.push(depth === 0 ? error : `${domain} (${via}): ${error}`)
    return { nodes: [node], all: null, record: null, records: [] }
  }
  if (path.includes(domain)) return fail('include loop')
  if (depth > MAX_DEPTH) return fail('nested too deeply')
  const { result, values } = await lookupTxt(dns, domain)
  const spf = values.filter(isSpfRecord)
  if (depth > 0 && (result.rcode === 'NXDOMAIN' || values.length === 0)) state.voids++
  if (depth === 0) {
    for (const v of values) if (/^\s+v=spf1/i.test(v)) state.warnings.push('A TXT record starts with whitespace before "v=spf1"; receivers ignore it.')
  }
  if (spf.length === 0) return depth === 0 ? { nodes: [node], all: null, record: null, records: [] } : fail('no SPF record (permerror)')
  if (spf.length > 1) {
    const r = fail(`${spf.length} SPF records; exactly one is allowed (permerror)`)
    return { ...r, records: spf }
  }
  const record = spf[0]
  node.record = record
  const parsed = parseSpf(record)
  for (const e of parsed.errors) state.errors.push(depth === 0 ? e : `${domain}: ${e}`)
  if (parsed.errors.length) node.error = parsed.errors.join('; ')

  const children: Promise<{ nodes: SpfNode[] }>[] = []
  const checks: Promise<void>[] = []
  const nextPath = [...path, domain]
  for (const term of parsed.terms) {
    if (!COUNTED.has(term.mechanism)) continue
    node.lookups++
    state.lookups++
    const target = term.value ?? domain
    if (term.mechanism === 'ptr') {
      state.warnings.push(`${domain}: the "ptr" mechanism is deprecated (RFC 7208 §5.5) and slow; replace it with ip4/ip6 or include.`)
      continue
    }
    if (hasMacro(target)) {
      state.warnings.push(`${domain}: "${term.mechanism}:${target}" uses macros, which depend on the sender and were not expanded.`)
      continue
    }
    if (state.lookups > WALK_CAP) continue
    if (term.mechanism === 'include') children.push(walk(dns, target.toLowerCase(), depth + 1, 'include', nextPath, state))
    else
      checks.push(
        isVoid(dns, target, term.mechanism === 'mx' ? 'MX' : 'A').then((empty) => {
          if (empty) state.voids++
        }),
      )
  }
  const allTerm = parsed.terms.find((t) => t.mechanism === 'all')
  const redirect = parsed.modifiers.find((m) => m.name === 'redirect')
  let redirected: Promise<{ nodes: SpfNode[]; all: Qualifier | null }> | null = null
  if (redirect && allTerm) state.warnings.push(`${domain}: "redirect" is ignored because the record has an "all" mechanism.`)
  if (redirect && !allTerm) {
    node.lookups++
    state.lookups++
    if (hasMacro(redirect.value)) state.warnings.push(`${domain}: redirect "${redirect.value}" uses macros and was not followed.`)
    else if (state.lookups <= WALK_CAP) redirected = walk(dns, redirect.value.toLowerCase(), depth + 1, 'redirect', nextPath, state)
  }
  const [subtrees, , redirectTree] = await Promise.all([Promise.all(children), Promise.all(checks), redirected])
  const nodes = [node, ...subtrees.flatMap((s) => s.nodes), ...(redirectTree?.nodes ?? [])]
  return { nodes, all: allTerm ? allTerm.qualifier : (redirectTree?.all ?? null), record, records: spf }
}

/** Walks the SPF tree of `domain`, counting lookups as a receiver would. */
export async function evaluateSpf(dns: Dns, domain: string): Promise<SpfEvaluation> {
  const state: WalkState = { lookups: 0, voids: 0, errors: [], warnings: [] }
  const root = await walk(dns, domain, 0, 'root', [], state)
  if (state.lookups > SPF_LOOKUP_LIMIT) state.errors.push(`${state.lookups} DNS-querying terms; receivers stop at ${SPF_LOOKUP_LIMIT} (permerror)`)
  if (state.voids > SPF_VOID_LIMIT) state.errors.push(`${state.voids} void lookups; receivers stop at ${SPF_VOID_LIMIT} (permerror)`)
  return {
    record: root.record,
    records: root.records,
    lookupCount: state.lookups,
    voidLookupCount: state.voids,
    allQualifier: root.all,
    tree: root.nodes,
    errors: state.errors,
    warnings: state.warnings,
  }
}

export async function checkSpf(dns: Dns, domain: string, opts: { acceptsMail: boolean }): Promise<SpfCheck> {
  const e = await evaluateSpf(dns, domain)
  const base = {
    record: e.record,
    records: e.records,
    lookupCount: e.lookupCount,
    voidLookupCount: e.voidLookupCount,
    allQualifier: e.allQualifier,
    tree: e.tree,
  }
  const suggested = opts.acceptsMail ? 'v=spf1 mx -all' : 'v=spf1 -all'
  if (e.records.length === 0) {
    return {
      ...base,
      warnings: e.warnings,
      status: 'not_found',
      detail: 'No SPF record: anyone can claim to send mail from this domain.',
      recommendation: {
        action: opts.acceptsMail
          ? "Publish an SPF record listing the servers that send your mail (add your provider's include), ending in -all."
          : 'The domain sends no mail: publish an SPF record that authorises nobody.',
        record: { name: domain, type: 'TXT', value: suggested },
      },
    }
  }
  const warnings = [...e.errors, ...e.warnings]
  const q = e.allQualifier
  if (q === '+') warnings.push('"+all" authorises every server on the internet to send as this domain.')
  if (q === '?') warnings.push('"?all" is neutral: it gives receivers no instruction about unlisted servers.')
  if (q === null) warnings.push('No "all" mechanism: unlisted servers get the default neutral result.')

  const status = e.errors.length > 0 || q === '+' ? 'fail' : q === '?' || q === null || e.warnings.length ? 'warn' : 'pass'
  const detail =
    e.errors[0] ??
    (q === '+' || q === '?' || q === null
      ? warnings.at(-1)!
      : `Valid SPF with ${e.lookupCount}/${SPF_LOOKUP_LIMIT} DNS lookups and ${q === '-' ? 'hard fail (-all)' : 'soft fail (~all)'} for unlisted servers.`)
  let recommendation: SpfCheck['recommendation'] = null
  if (e.lookupCount > SPF_LOOKUP_LIMIT)
    recommendation = {
      action: `Cut the DNS-querying terms to ${SPF_LOOKUP_LIMIT} or fewer: drop unused includes or replace them with ip4/ip6 ranges.`,
      record: null,
    }
  else if (e.errors.length) recommendation = { action: `Fix the SPF record: ${e.errors[0]}.`, record: null }
  else if (q === '+' || q === '?' || q === null) {
    const fixed = e.record!.replace(/\s+[+?~-]?all\b.*$/i, '').replace(/\s+redirect=\S+/i, '')
    recommendation = {
      action: 'End the SPF record with -all (or ~all while testing) so unlisted servers fail.',
      record: { name: domain, type: 'TXT', value: `${fixed} -all` },
    }
  } else if (status === 'warn') recommendation = { action: e.warnings[0], record: null }
  return { ...base, warnings, status, detail, recommendation }
}
