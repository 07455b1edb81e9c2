// The official MCP conformance suite (@modelcontextprotocol/conformance) against the built server:
// starts `node server.mjs` on a loopback port, runs each scenario that applies to a stateless,
// tools-only server, and writes the counts to .test-results/conformance.json for scripts/test.mjs.
// The suite needs Node 22 or later, so npx runs it on a Node 24 taken from the npm registry.
// Which scenarios do not apply, and why: README, "MCP tool server".
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { startApp } from '../tests/helpers/app'

const SUITE = ['--yes', '-p', 'node@24.21.0', '-p', '@modelcontextprotocol/conformance@0.1.16', '--', 'conformance']
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']

const OUT = '.test-results'
const RESULTS = path.join(OUT, 'conformance')

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

/** The checks one scenario wrote (the suite names its folder `server-<scenario>-<time>`). */
function checksOf(scenario: string): Check[] {
  const folder = readdirSync(RESULTS).find((name) => name.startsWith(`server-${scenario}-`))
  return folder ? (JSON.parse(readFileSync(path.join(RESULTS, folder, 'checks.json'), 'utf8')) as Check[]) : []
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
    for (const scenario of SCENARIOS) {
      console.log(`\n--- ${scenario}`)
      spawnSync('npx', [...SUITE, 'server', '--url', url, '--scenario', scenario, '-o', RESULTS], { stdio: 'inherit' })
      const checks = checksOf(scenario)
      const failed = checks.filter((c) => c.status === 'FAILURE')
      // A scenario that wrote no checks (the suite could not run) counts as failed.
      rows.push({ scenario, passed: checks.length > 0 && failed.length === 0, checks: `${checks.length - failed.length}/${checks.length} checks` })
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
