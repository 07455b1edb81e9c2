import 'server-only'
import { sql } from 'drizzle-orm'
import type { Db } from '@/lib/db/client'
import { CHECK_NAMES, type DomainHealthReport } from '@/lib/domains/schemas'
import { checkDomainHealth, platformDomainNames } from '@/lib/domains/service'
import { rowsOf } from '@/lib/db/rows'
import { write as writeDomainChecks } from '@/lib/datasets/domain-checks/store'
import { recordPostureChanges } from '@/lib/alerts/job'

// The domain-posture job: the graded mail and DNS check of GET /api/domains/{domain} (the same
// function; MCP check_domain_health stays a live check) for every platform domain, kept as
// history in domain_checks. One row per domain and check per run, plus an `overall` row with the
// grade and score; each row says what changed since the previous run of that domain and check.

export const OVERALL = 'overall'

export interface DomainCheckRow {
  checkedAt: Date
  domain: string
  checkName: string
  grade: string | null
  score: number | null
  status: string
  findings: string
  previousStatus: string | null
  changed: boolean
  change: string | null
}

type Observed = Pick<DomainCheckRow, 'checkName' | 'grade' | 'score' | 'status' | 'findings'>
interface Previous {
  status: string
  grade: string | null
  findings: string
}

/** What a check found, in one comparable line: its detail and every warning. */
const findingsOf = (detail: string, warnings: readonly string[]) => [detail, ...warnings].join(' | ')

/** The rows of one domain's report (or of the error that stopped its check). */
export function observe(report: DomainHealthReport | { error: string }): Observed[] {
  if ('error' in report) return [{ checkName: OVERALL, grade: null, score: null, status: 'error', findings: report.error }]
  const s = report.summary
  const overall: Observed = {
    checkName: OVERALL,
    grade: report.grade,
    score: report.score,
    status: 'graded',
    findings: `score ${report.score}; ${s.pass} pass, ${s.warn} warn, ${s.fail} fail, ${s.info} info, ${s.not_found} not found`,
  }
  return [
    overall,
    ...CHECK_NAMES.map((name) => {
      const check = report.checks[name]
      return { checkName: name, grade: report.grade, score: report.score, status: check.status, findings: findingsOf(check.detail, check.warnings) }
    }),
  ]
}

/** The state a row is compared on: the grade for `overall` (or `error`), the status for a check. */
const stateOf = (r: { checkName: string; status: string; grade: string | null }) =>
  r.checkName === OVERALL && r.status !== 'error' ? (r.grade ?? r.status) : r.status

/** Compares a row with the previous run's row of the same domain and check. */
export function compare(now: Observed, previous: Previous | undefined): Pick<DomainCheckRow, 'previousStatus' | 'changed' | 'change'> {
  if (!previous) return { previousStatus: null, changed: false, change: null }
  const before = stateOf({ checkName: now.checkName, status: previous.status, grade: previous.grade })
  const after = stateOf(now)
  const what = now.checkName === OVERALL && now.status !== 'error' && previous.status !== 'error' ? 'grade' : 'status'
  if (before !== after) return { previousStatus: before, changed: true, change: `${what} ${before} → ${after}` }
  if (previous.findings !== now.findings)
    return { previousStatus: before, changed: true, change: now.checkName === OVERALL ? `${now.findings} (was ${previous.findings})` : 'findings changed' }
  return { previousStatus: before, changed: false, change: null }
}

/** The latest stored row of each check of `domain` (index domain_checks_domain_check_time_idx). */
async function previousRows(db: Db, domain: string): Promise<Map<string, Previous>> {
  const result = await db.execute(
    sql`SELECT DISTINCT ON ("check_name") "check_name", "status", "grade", "findings" FROM "domain_checks" WHERE "domain" = ${domain} ORDER BY "check_name", "checked_at" DESC, "id" DESC`,
  )
  return new Map(
    rowsOf(result).map((r) => [
      String(r.check_name),
      { status: String(r.status), grade: r.grade === null ? null : String(r.grade), findings: String(r.findings) },
    ]),
  )
}

export interface PostureResult {
  summary: string
  counts: { domains: number; checked: number; errors: number; rows: number; changes: number }
  /** The first domains that could not be checked, with why. */
  errors: string[]
  rows: DomainCheckRow[]
}

export interface PostureDeps {
  domains?: () => string[]
  check?: (domain: string) => Promise<DomainHealthReport>
  now?: () => Date
}

/** Checks every platform domain; stores the rows unless `dryRun`. */
export async function runDomainPosture(db: Db, { dryRun }: { dryRun: boolean }, deps: PostureDeps = {}): Promise<PostureResult> {
  const domains = (deps.domains ?? (() => platformDomainNames().names))()
  const check = deps.check ?? ((domain: string) => checkDomainHealth({ domain }))
  const rows: DomainCheckRow[] = []
  const errors: string[] = []
  // One domain at a time: the checks of one domain already run their lookups concurrently.
  for (const domain of domains) {
    const checkedAt = (deps.now ?? (() => new Date()))()
    let observed: Observed[]
    try {
      observed = observe(await check(domain))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      errors.push(`${domain}: ${message}`)
      observed = observe({ error: message })
    }
    const previous = await previousRows(db, domain)
    for (const o of observed) rows.push({ checkedAt, domain, ...o, ...compare(o, previous.get(o.checkName)) })
  }
  if (!dryRun) {
    await writeDomainChecks.insert(db, rows)
    // A grade or record that changed is an alert, sent by the next alerts run (lib/alerts/job.ts).
    await recordPostureChanges(
      db,
      rows.filter((r) => r.changed),
    )
  }
  const changes = rows.filter((r) => r.changed).length
  const counts = { domains: domains.length, checked: domains.length - errors.length, errors: errors.length, rows: rows.length, changes }
  const grades = rows.filter((r) => r.checkName === OVERALL).map((r) => `${r.domain} ${r.grade ?? 'error'}`)
  const summary = `Checked ${counts.checked} of ${counts.domains} domain${counts.domains === 1 ? '' : 's'} (${grades.join(', ') || 'none'}); ${changes} change${changes === 1 ? '' : 's'} since the previous run${dryRun ? '; dry run: nothing stored' : ''}.`
  return { summary, counts, errors: errors.slice(0, 5), rows }
}
