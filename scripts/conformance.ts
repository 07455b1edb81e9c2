// The official MCP conformance suite (@modelcontextprotocol/conformance) against the built server:
// starts `node server.mjs` on a loopback port and runs the frozen requirement set of each protocol
// revision /api/mcp speaks (`--requirements 2025-11-25` and `--requirements 2026-07-28`: exactly the
// server scenarios each revision requires, fixed when it shipped, each run at that revision's wire
// version). It writes one row per required scenario to .test-results/conformance.json for
// scripts/test.mjs and prints the pass table docs/mcp.md publishes ("Conformance").
// The suite needs Node 22 or later, so npx runs it on a Node 24 taken from the npm registry.
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { startApp } from '../test-support/app'

const SUITE = ['--yes', '-p', 'node@24.21.0', '-p', '@modelcontextprotocol/conformance@0.2.0-alpha.12', '--', 'conformance']
const REVISIONS = ['2025-11-25', '2026-07-28'] as const

// Required scenarios this server cannot pass by design, and why: they call the reference test
// server's fixture tools (test_simple_text, test_image_content, test_error_handling, …), need
// resources, prompts or completions this tools-only server does not offer, or need a session and an
// event stream for server-to-client requests and notifications during a call. Reported in the table,
// never counted as passed or failed.
const FIXTURE_TOOLS =
  "calls a fixture tool of the reference test server that this server does not have; our own tools' results and errors are covered by tests/integration/mcp*.test.ts"
const NOT_APPLICABLE: Record<string, string> = {
  'completion-complete': 'no completions',
  'tools-call-simple-text': FIXTURE_TOOLS,
  'tools-call-image': FIXTURE_TOOLS,
  'tools-call-audio': FIXTURE_TOOLS,
  'tools-call-embedded-resource': FIXTURE_TOOLS,
  'tools-call-mixed-content': FIXTURE_TOOLS,
  'tools-call-error': FIXTURE_TOOLS,
  'tools-call-with-logging': `${FIXTURE_TOOLS}; logging is deprecated in 2026-07-28 (SEP-2577), and a stateless JSON answer carries no notification`,
  'tools-call-with-progress': `${FIXTURE_TOOLS}; progress notifications need an event stream`,
  'tools-call-sampling': 'a server-to-client request (sampling), which needs a session and an event stream',
  'tools-call-elicitation': 'a server-to-client request (elicitation), which needs a session and an event stream',
  'elicitation-sep1034-defaults': 'elicitation, which needs a session and an event stream',
  'elicitation-sep1330-enums': 'elicitation, which needs a session and an event stream',
  'logging-set-level': 'logging/setLevel (deprecated in 2026-07-28, SEP-2577): the 2025-era server declares no logging capability',
  'server-sse-multiple-streams': 'event streams; answers here are plain JSON',
  'resources-list': 'no resources',
  'resources-read-text': 'no resources',
  'resources-read-binary': 'no resources',
  'resources-templates-read': 'no resources',
  'resources-subscribe': 'no resources',
  'resources-unsubscribe': 'no resources',
  'sep-2164-resource-not-found': 'no resources',
  'prompts-list': 'no prompts',
  'prompts-get-simple': 'no prompts',
  'prompts-get-with-args': 'no prompts',
  'prompts-get-embedded-resource': 'no prompts',
  'prompts-get-with-image': 'no prompts',
}
// Multi-round-trip (input-required) scenarios call the reference server's fixture tools (or a
// prompt) that ask the client for input; nothing here needs input from the client.
const notApplicable = (scenario: string) =>
  NOT_APPLICABLE[scenario] ??
  (scenario.startsWith('input-required-result-')
    ? 'multi-round-trip input requests from fixture tools or prompts of the reference server; nothing here asks the client for input'
    : null)

// Checks inside applicable scenarios that do not apply, by id: diagnostic fixture tools of the
// reference server (test_missing_capability, test_streaming_elicitation, test_logging_tool), or
// caching hints of prompts and resources, which this server does not offer.
const NOT_APPLICABLE_CHECKS = new Set([
  'sep-2575-server-rejects-undeclared-capability',
  'sep-2575-missing-capability-http-400',
  'sep-2575-http-server-no-independent-requests-on-stream',
  'sep-2575-server-no-log-without-loglevel',
  'sep-2549-prompts-list-caching-hints',
  'sep-2549-resources-list-caching-hints',
  'sep-2549-resources-templates-list-caching-hints',
])

const OUT = '.test-results'
const RESULTS = path.join(OUT, 'conformance')

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO'
  errorMessage?: string
}

interface Row {
  scenario: string
  revision: string
  result: 'pass' | 'fail' | 'not applicable'
  detail: string
}

const npx = (args: string[]) => spawnSync('npx', [...SUITE, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })

/** The server scenarios a revision requires (`conformance list --requirements`). */
function requiredScenarios(revision: string): string[] {
  const out = npx(['list', '--requirements', revision]).stdout
  const section = out.split(/^Server scenarios.*$/m)[1]?.split(/^\S.*$/m)[0] ?? ''
  return [...section.matchAll(/^ {2}- (\S+)$/gm)].map((m) => m[1])
}

/** The checks one scenario wrote (the suite names its folder `server-<scenario>-<time>`). */
function checksOf(results: string, scenario: string): Check[] {
  const folder = readdirSync(results).find((name) => name.startsWith(`server-${scenario}-`))
  return folder ? (JSON.parse(readFileSync(path.join(results, folder, 'checks.json'), 'utf8')) as Check[]) : []
}

function rowOf(revision: string, scenario: string, checks: Check[]): Row {
  const failed = checks.filter((c) => c.status === 'FAILURE' && !NOT_APPLICABLE_CHECKS.has(c.id))
  const skipped = checks.filter((c) => c.status === 'FAILURE' && NOT_APPLICABLE_CHECKS.has(c.id))
  const counted = `${checks.length - failed.length - skipped.length}/${checks.length} checks${skipped.length ? ` (${skipped.length} not applicable)` : ''}`
  // A scenario that wrote no checks (the suite could not run it) counts as failed.
  const passes = checks.length > 0 && failed.length === 0
  if (passes) return { scenario, revision, result: 'pass', detail: counted }
  // One that fails is not applicable only when the server does not offer what it exercises.
  const reason = notApplicable(scenario)
  if (reason) return { scenario, revision, result: 'not applicable', detail: reason }
  return { scenario, revision, result: 'fail', detail: checks.length ? `${counted}; failed: ${failed.map((c) => c.id).join(', ')}` : 'no checks written' }
}

async function main() {
  rmSync(RESULTS, { recursive: true, force: true })
  mkdirSync(RESULTS, { recursive: true })
  // The DNS-rebinding scenario requires a loopback URL; the server's loopback same-origin rule
  // accepts the suite's own Host/Origin pair and refuses the rebound one.
  const app = await startApp()
  const url = `${app.url}/api/mcp`
  const rows: Row[] = []
  try {
    for (const revision of REVISIONS) {
      const results = path.join(RESULTS, revision)
      mkdirSync(results, { recursive: true })
      const scenarios = requiredScenarios(revision)
      if (scenarios.length === 0) throw new Error(`the suite lists no server scenarios for --requirements ${revision}`)
      console.log(`\n--- --requirements ${revision}: ${scenarios.length} server scenarios`)
      spawnSync('npx', [...SUITE, 'server', '--url', url, '--requirements', revision, '-o', results], { stdio: 'inherit' })
      rows.push(...scenarios.map((scenario) => rowOf(revision, scenario, checksOf(results, scenario))))
    }
  } finally {
    await app.stop()
  }
  const passed = rows.filter((r) => r.result === 'pass').length
  const failed = rows.filter((r) => r.result === 'fail').length
  const notApplicableCount = rows.length - passed - failed
  writeFileSync(path.join(OUT, 'conformance.json'), JSON.stringify({ passed, failed, notApplicable: notApplicableCount, scenarios: rows }, null, 2))
  console.log('\n| Scenario | Revision | Result | Detail |\n|---|---|---|---|')
  for (const r of rows) console.log(`| \`${r.scenario}\` | ${r.revision} | ${r.result} | ${r.detail} |`)
  console.log(`\nconformance: ${passed} passed, ${failed} failed, ${notApplicableCount} not applicable`)
  process.exit(failed > 0 ? 1 : 0)
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
