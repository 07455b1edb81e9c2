import type { CheckName, CheckStatus } from '@/lib/domains/schemas'

// The overall score: a weighted share of the checks that apply. `pass` earns a check's full
// weight, `warn` half, `fail` and `not_found` nothing; `info` (not applicable, or not checked
// because a lookup failed) leaves the check out of the total. BIMI is optional branding and
// weighs nothing. The weights sum to 100.

export const CHECK_WEIGHTS: Record<CheckName, number> = {
  dmarc: 25,
  spf: 20,
  mx: 10,
  dkim: 10,
  mtaSts: 10,
  dnssec: 10,
  tlsRpt: 5,
  caa: 5,
  dane: 5,
  bimi: 0,
}

const CREDIT: Record<CheckStatus, number | null> = { pass: 1, warn: 0.5, fail: 0, not_found: 0, info: null }

export type Grade = 'A' | 'B' | 'C' | 'D' | 'F'

export function gradeOf(score: number): Grade {
  if (score >= 90) return 'A'
  if (score >= 75) return 'B'
  if (score >= 60) return 'C'
  if (score >= 40) return 'D'
  return 'F'
}

export function scoreChecks(statuses: Record<CheckName, CheckStatus>): { score: number; grade: Grade } {
  let earned = 0
  let possible = 0
  for (const [name, status] of Object.entries(statuses) as [CheckName, CheckStatus][]) {
    const credit = CREDIT[status]
    if (credit === null) continue
    earned += CHECK_WEIGHTS[name] * credit
    possible += CHECK_WEIGHTS[name]
  }
  const score = possible === 0 ? 0 : Math.round((100 * earned) / possible)
  return { score, grade: gradeOf(score) }
}
