// The official MCP conformance suite (@modelcontextprotocol/conformance) against the built server:
// starts `node server.mjs` on a loopback port, runs each scenario that applies to a stateless,
// tools-only server, and writes the counts to .test-results/conformance.json for scripts/test.mjs.
// The suite needs Node 22 or later, so npx runs it on a Node 24 taken from the npm registry.
// Which scenarios do not apply, and why: docs/mcp.md, "Conformance".
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { startApp } from '../test-support/app'

// Two runs, one per protocol era on /api/mcp. The 2025 scenarios come from the release this stage
// has always run; revision 2026-07-28 (stateless, per-request `_meta`) from the first release line
// whose requirements name it (0.2.0 pre-releases), at that revision's wire version. Of the
// scenarios its requirements list, those for a stateless tools-only server without fixture tools.
const RUNS = [
  {
    era: '2025',
    suite: ['--yes', '-p', 'node@24.21.0', '-p', '@modelcontextprotocol/conformance@0.1.16', '--', 'conformance'],
    extra: [] as string[],
    scenarios: ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'],
    notApplicable: [] as string[],
  },
  {
    era: '2026-07-28',
    suite: ['--yes', '-p', 'node@24.21.0', '-p', '@modelcontextprotocol/conformance@0.2.0-alpha.12', '--', 'conformance'],
    extra: ['--spec-version', '2026-07-28'],
    scenarios: ['server-stateless', 'tools-list', 'caching', 'dns-rebinding-protection'],
    // Checks that do not apply, by id: they call diagnostic fixture tools of the reference server
    // (test_missing_capability, test_streaming_elicitation, test_logging_tool) that this server does
    // not have (tests/integration/mcp-2026.test.ts covers the per-request log level with our own
    // tools), or list prompts and resources, which this tools-only server does not offer.
    notApplicable: [
      'sep-2575-server-rejects-undeclared-capability',
      'sep-2575-missing-capability-http-400',
      'sep-2575-http-server-no-independent-requests-on-stream',
      'sep-2575-server-no-log-without-loglevel',
      'sep-2549-prompts-list-caching-hints',
      'sep-2549-resources-list-caching-hints',
      'sep-2549-resources-templates-list-caching-hints',
    ],
  },
]

const OUT = '.test-results'
const RESULTS = path.join(OUT, 'conformance')

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

/** The checks one scenario wrote (the suite names its folder `server-<scenario>-<time>`). */
function checksOf(results: string, scenario: string): Check[] {
  const folder = readdirSync(results).find((name) => name.startsWith(`server-${scenario}-`))
  return folder ? (JSON.parse(readFileSync(path.join(results, folder, 'checks.json'), 'utf8')) as Check[]) : []
}

async function main() {
  rmSync(RESULTS, { recursive: true, force: true })
  mkdirSync(RESULTS, { recursive: true })
  // The DNS-rebinding scenario requires a loopback URL; the server's loopback same-origin rule
  // accepts the suite's own Host/Origin pair and refuses the rebound one.
  const app = await startApp()
  const url = `${app.url}/api/mcp`
  const rows: { scenario: string; passed: boolean; checks: string }[] = []
  try {
    for (const run of RUNS) {
      const results = path.join(RESULTS, run.era)
      mkdirSync(results, { recursive: true })
      for (const scenario of run.scenarios) {
        console.log(`\n--- ${scenario} (${run.era})`)
        spawnSync('npx', [...run.suite, 'server', '--url', url, '--scenario', scenario, ...run.extra, '-o', results], { stdio: 'inherit' })
        const checks = checksOf(results, scenario)
        const failed = checks.filter((c) => c.status === 'FAILURE' && !run.notApplicable.includes(c.id))
        const skipped = checks.filter((c) => c.status === 'FAILURE' && run.notApplicable.includes(c.id)).map((c) => c.id)
        if (skipped.length) console.log(`not applicable here: ${skipped.join(', ')}`)
        // A scenario that wrote no checks (the suite could not run) counts as failed.
        rows.push({
          scenario: `${scenario} (${run.era})`,
          passed: checks.length > 0 && failed.length === 0,
          checks: `${checks.length - failed.length - skipped.length}/${checks.length} checks${skipped.length ? `, ${skipped.length} not applicable` : ''}`,
        })
      }
    }
  } finally {
    await app.stop()
  }
  const passed = rows.filter((r) => r.passed).length
  const failed = rows.length - passed
  writeFileSync(path.join(OUT, 'conformance.json'), JSON.stringify({ passed, failed, scenarios: rows }, null, 2))
  console.log(`\n${rows.map((r) => `${r.passed ? 'pass' : 'FAIL'} ${r.scenario} (${r.checks})`).join('\n')}`)
  console.log(`conformance: ${passed} passed, ${failed} failed`)
  process.exit(failed > 0 ? 1 : 0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
