// Dependency advisories (`npm run lint`, the `advisories` stage of `npm test`): package-lock.json
// checked against the advisory database of the configured registry through `npm audit`. A high or
// critical advisory fails the check with a list (package, severity, advisory, the fix); lower ones
// are listed without failing. When the advisory source cannot be reached (offline, or a registry
// mirror that does not serve the bulk advisory endpoint: HTTP 405), the check says so plainly and
// passes: it cannot tell, and a network fault must not fail CI. ADVISORIES_REQUIRED=1 makes that
// case fail too (a release check with the registry at hand).
import { spawnSync } from 'node:child_process'
import { pathToFileURL } from 'node:url'

const FAILING = new Set(['high', 'critical'])
const ORDER = ['critical', 'high', 'moderate', 'low', 'info']

/**
 * What `npm audit --json` said: `{ kind: 'unreachable', reason }` when it got no advisory data,
 * otherwise `{ kind: 'checked', failing, other, total }` with one line per vulnerable package.
 */
export function auditVerdict(report) {
  if (!report || typeof report !== 'object') return { kind: 'unreachable', reason: 'npm audit printed no report' }
  if (!report.vulnerabilities || !report.metadata) {
    const status = report.statusCode ? `HTTP ${report.statusCode}` : (report.error?.code ?? 'no answer')
    return { kind: 'unreachable', reason: report.message ?? `${status} from ${report.uri ?? 'the advisory endpoint'}` }
  }
  const lines = Object.values(report.vulnerabilities)
    .map((v) => {
      const advisories = (v.via ?? []).filter((via) => typeof via === 'object').map((via) => `${via.title} (${via.url ?? via.source})`)
      const through = (v.via ?? []).filter((via) => typeof via === 'string')
      const fix = v.fixAvailable === true ? 'fix: npm audit fix' : v.fixAvailable ? `fix: ${v.fixAvailable.name}@${v.fixAvailable.version}` : 'no fix yet'
      const what = advisories.length ? advisories.join('; ') : `through ${through.join(', ')}`
      return { severity: v.severity, text: `${v.severity.padEnd(8)} ${v.name} ${v.range ?? ''}: ${what}; ${fix}` }
    })
    .sort((a, b) => ORDER.indexOf(a.severity) - ORDER.indexOf(b.severity))
  return {
    kind: 'checked',
    failing: lines.filter((l) => FAILING.has(l.severity)).map((l) => l.text),
    other: lines.filter((l) => !FAILING.has(l.severity)).map((l) => l.text),
    total: report.metadata.dependencies?.total ?? null,
  }
}

function runAudit() {
  const r = spawnSync('npm', ['audit', '--json'], { encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024 })
  if (r.error) return { message: `npm audit did not finish: ${r.error.message}` }
  try {
    return JSON.parse(r.stdout)
  } catch {
    return { message: (r.stderr || 'npm audit printed no JSON').trim().split('\n').slice(-3).join(' ') }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const verdict = auditVerdict(runAudit())
  if (verdict.kind === 'unreachable') {
    console.log(`dependency advisories: NOT CHECKED, the advisory source could not be reached: ${verdict.reason}.`)
    console.log('  The lock file was not checked for advisories; run `npm audit` where the registry serves POST /-/npm/v1/security/advisories/bulk.')
    process.exit(process.env.ADVISORIES_REQUIRED === '1' ? 1 : 0)
  }
  const packages = verdict.total === null ? 'the lock file' : `${verdict.total} packages`
  for (const line of verdict.other) console.log(`  ${line}`)
  if (verdict.failing.length) {
    console.error(`dependency advisories: ${verdict.failing.length} package(s) with high or critical advisories in ${packages}:`)
    for (const line of verdict.failing) console.error(`  ${line}`)
    process.exit(1)
  }
  console.log(`dependency advisories: none high or critical in ${packages}${verdict.other.length ? ` (${verdict.other.length} lower, listed above)` : ''}.`)
}
