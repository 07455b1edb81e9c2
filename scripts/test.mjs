// `npm test`: provisioning first (scripts/provision.mjs: Chromium, HAProxy, PostgreSQL, Redis and the test
// databases, installed or started when missing, or one message saying what to do), then lint,
// typecheck, build, the unit suite (on this Node and on each supported line), integration,
// scale (three instances behind HAProxy), fault-injection and end-to-end suites. Every stage runs
// even when an earlier one failed, and the last line sums the test counts: `N passed, N failed`.
// `npm test -- unit e2e` runs only the named stages (and provisions only what they need).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import path from 'node:path'
import { needsOf, provision, REPLICA_DIR, replicaUrl } from './provision.mjs'

const OUT = '.test-results'
rmSync(OUT, { recursive: true, force: true })
mkdirSync(OUT, { recursive: true })

const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', FORCE_COLOR: '0' }
const bin = (name) => `node_modules/.bin/${name}`

/** Counts from a Vitest JSON report. */
function vitestCounts(file) {
  if (!existsSync(file)) return null
  const r = JSON.parse(readFileSync(file, 'utf8'))
  return { passed: r.numPassedTests, failed: r.numFailedTests + (r.numTotalTestSuites > 0 && r.success === false && r.numFailedTests === 0 ? 1 : 0) }
}

/** Counts from a Playwright JSON report. */
function playwrightCounts(file) {
  if (!existsSync(file)) return null
  const { stats } = JSON.parse(readFileSync(file, 'utf8'))
  return { passed: stats.expected + stats.flaky, failed: stats.unexpected }
}

/** Counts a stage wrote itself as `{ passed, failed }`. */
function jsonCounts(file) {
  if (!existsSync(file)) return null
  const { passed, failed } = JSON.parse(readFileSync(file, 'utf8'))
  return { passed, failed }
}

const vitest = (project, name, extraEnv = {}, files = []) => ({
  name,
  cmd: [bin('vitest'), 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${OUT}/${name}.json`, ...files],
  env: extraEnv,
  counts: () => vitestCounts(`${OUT}/${name}.json`),
})

const testDatabaseUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/qd_test'
/** Another database on the server of `url`. */
const siblingDatabase = (url, name) => Object.assign(new URL(url), { pathname: `/${name}` }).toString()
// The database-backed unit suites: those that take their database from test-support/query-database
// (PGlite by default, QUERY_TEST_DATABASE_URL when set), found rather than listed.
const QUERY_DATA_SUITES = readdirSync('tests/unit')
  .filter((name) => name.endsWith('.test.ts') && readFileSync(`tests/unit/${name}`, 'utf8').includes('test-support/query-database'))
  .sort()
  .map((name) => `tests/unit/${name}`)

const stages = [
  { name: 'format', cmd: [bin('prettier'), '--check', '--log-level=warn', '.'] },
  { name: 'lint', cmd: [bin('eslint'), '.', '--max-warnings=0'] },
  // The layer rules of .dependency-cruiser.cjs (files), then no cycle between lib/ folders.
  { name: 'layers', cmd: ['npm', 'run', '--silent', 'lint:layers'] },
  // Unused files, exports and dependencies (knip.jsonc).
  { name: 'unused', cmd: [bin('knip'), '--no-progress'] },
  { name: 'openapi-lint', cmd: ['node', 'scripts/lint-openapi.mjs'] },
  // package-lock.json against the registry's advisories: high or critical fails; an unreachable source is said, not failed.
  { name: 'advisories', cmd: ['node', 'scripts/audit-dependencies.mjs'] },
  { name: 'typecheck', cmd: [bin('tsc'), '--noEmit'] },
  { name: 'build', cmd: ['node', 'node_modules/next/dist/bin/next', 'build'] },
  vitest('unit', 'unit'),
  // The database-backed unit tests run on PGlite in the stage above and again here on a real
  // Postgres (emptied first: give it a database of its own; each suite adds a suffix to its name).
  vitest('unit', 'unit-postgres', { QUERY_TEST_DATABASE_URL: testDatabaseUrl }, QUERY_DATA_SUITES),
  // …and through the Neon driver, over a loopback WebSocket relay to the same Postgres.
  vitest('unit', 'unit-neon', { QUERY_TEST_DATABASE_URL: testDatabaseUrl, QUERY_TEST_DRIVER: 'neon' }, QUERY_DATA_SUITES),
  vitest('integration', 'integration'),
  // The query application's routes and pages and the jobs ran on PGlite above; again on the real
  // Postgres, where the jobs' lock is also held from another process.
  vitest('integration', 'integration-postgres', { QUERY_TEST_DATABASE_URL: testDatabaseUrl }, [
    'tests/integration/query-app.test.ts',
    'tests/integration/jobs.test.ts',
  ]),
  // The query role on a streaming replica of that Postgres (provisioned in .cache/pg-replica on
  // 127.0.0.1:5433, or TEST_REPLICA_URL): reads through it, its lag on the pages with replay
  // paused, and the 503 while it is stopped (the provisioned one only; else a closed port).
  vitest(
    'integration',
    'integration-replica',
    {
      TEST_DATABASE_URL: testDatabaseUrl,
      TEST_REPLICA_URL: replicaUrl(process.env),
      ...(process.env.TEST_REPLICA_URL ? {} : { TEST_REPLICA_DIR: path.resolve(REPLICA_DIR) }),
    },
    ['tests/integration/query-replica.test.ts'],
  ),
  // The unit project again on Node 22, 24 and 26, and the integration project against the build
  // served by 26 (scripts/node-lines.mjs: each line from the npm registry, cached in .cache/node/;
  // NODE_LINES_INTEGRATION picks the integration lines), whichever Node runs this script.
  { name: 'node-lines', cmd: ['node', 'scripts/node-lines.mjs'], counts: () => jsonCounts(`${OUT}/node-lines.json`) },
  // Three instances of the build behind HAProxy (deploy/haproxy.cfg, Debian's package) on one
  // Postgres (database qd_scale beside TEST_DATABASE_URL's) and one Redis (DB 10 of TEST_REDIS_URL's): one client's
  // quota across the instances, a forged X-Forwarded-For, a cron job called on all three, one
  // journal directory, and SCALE_LOAD_SECONDS (120) of load from 64 client addresses while each
  // instance restarts in turn. Each scenario prints the numbers it asserted (`[scale] …`).
  vitest('scale', 'scale', {
    SCALE_DATABASE_URL: process.env.SCALE_DATABASE_URL ?? siblingDatabase(testDatabaseUrl, 'qd_scale'),
    SCALE_REDIS_URL: process.env.SCALE_REDIS_URL ?? siblingDatabase(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', '10'),
  }),
  // Fault injection against the built server: loopback proxies in front of Redis and Postgres cut
  // and hang them under load; SIGTERM while requests or the database hang; oversized bodies; a
  // schema-driven fuzz; a soak. Each scenario prints the numbers it asserted (`[fault] …`).
  vitest('fault', 'fault', { TEST_DATABASE_URL: testDatabaseUrl }),
  // The official MCP conformance suite against the built server (scenarios that apply to a
  // stateless, tools-only server; one count per scenario).
  { name: 'conformance', cmd: [bin('tsx'), '--tsconfig', 'tsconfig.json', 'scripts/conformance.ts'], counts: () => jsonCounts(`${OUT}/conformance.json`) },
  {
    name: 'e2e',
    cmd: [bin('playwright'), 'test', '--reporter=list,json'],
    env: { PLAYWRIGHT_JSON_OUTPUT_NAME: `${OUT}/e2e.json` },
    counts: () => playwrightCounts(`${OUT}/e2e.json`),
  },
]

const only = process.argv.slice(2)
const provisionStart = Date.now()
try {
  await provision({ needs: needsOf(only) })
  console.log(`provisioned in ${((Date.now() - provisionStart) / 1000).toFixed(1)} s`)
} catch (error) {
  console.error(`\n${error instanceof Error ? error.message : error}`)
  console.log('0 passed, 1 failed')
  process.exit(1)
}

let passed = 0
let failed = 0
const summary = []
for (const stage of stages) {
  if (only.length && !only.includes(stage.name)) continue
  console.log(`\n=== ${stage.name}: ${stage.cmd.join(' ')}`)
  const t0 = Date.now()
  const r = spawnSync(stage.cmd[0], stage.cmd.slice(1), { stdio: 'inherit', env: { ...env, ...stage.env } })
  const ok = r.status === 0
  const counts = stage.counts?.()
  if (counts) {
    passed += counts.passed
    failed += counts.failed
    if (!ok && counts.failed === 0) failed += 1 // the runner failed without a failing test (crash, no tests)
  } else if (!ok) failed += 1 // a failing check stage counts as one failure
  summary.push(
    `${ok ? 'ok  ' : 'FAIL'} ${stage.name} (${((Date.now() - t0) / 1000).toFixed(1)} s)${counts ? `: ${counts.passed} passed, ${counts.failed} failed` : ''}`,
  )
}
console.log(`\n${summary.join('\n')}`)
console.log(`${passed} passed, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
