// The unit suite on each supported Node line, whatever Node runs `npm test`: the runtime's own
// parts (fetch and its bundled undici, node:url, crypto, streams) change between lines, and a test
// run only on the installed one hides that. Each line comes from the npm registry as the `node`
// package (it ships the binary), installed once into .cache/node/<major>/ (git-ignored) and reused.
//
//   node scripts/node-lines.mjs                     the unit project on 22, 24 and 26, the integration
//                                                   project (after a build) on NODE_LINES_INTEGRATION
//   node scripts/node-lines.mjs 26 tests/unit/x.ts  one line, unit files (other arguments go to vitest)
//
// NODE_LINES_INTEGRATION (default 26, the Active LTS line): the lines, comma-separated, that also run
// the integration project against the build served by that line; `22,24,26` for all of them. Each
// line's integration run takes about ten minutes, which the default keeps inside CI's time budget.
//
// Counts go to .test-results/node-lines.json as { passed, failed } (scripts/test.mjs reads them);
// a line that cannot be installed counts as one failure.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'

const LINES = ['22', '24', '26']
const INTEGRATION_LINES = (process.env.NODE_LINES_INTEGRATION ?? '26')
  .split(',')
  .map((l) => l.trim())
  .filter(Boolean)
const OUT = '.test-results'

const args = process.argv.slice(2)
const lines = args.filter((a) => /^\d+$/.test(a))
const vitestArgs = args.filter((a) => !/^\d+$/.test(a))

const binaryOf = (major) => path.resolve('.cache', 'node', major, 'node_modules', 'node', 'bin', 'node')

/** `vX.Y.Z` of a binary, or null when it is absent or does not run. */
function versionOf(bin) {
  if (!existsSync(bin)) return null
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8' })
  return r.status === 0 ? r.stdout.trim() : null
}

/** The binary for a major line, installed from the npm registry when the cache lacks it. */
function ensureLine(major) {
  const bin = binaryOf(major)
  const have = versionOf(bin)
  if (have?.startsWith(`v${major}.`)) return { bin, version: have }
  const prefix = path.join('.cache', 'node', major)
  console.log(`installing node@${major} into ${prefix}`)
  // The package's install script is what places the binary: allowed here by name, as the project allows its own.
  mkdirSync(prefix, { recursive: true })
  writeFileSync(path.join(prefix, 'package.json'), `${JSON.stringify({ private: true, allowScripts: { node: true } }, null, 2)}\n`)
  const r = spawnSync('npm', ['install', '--prefix', prefix, `node@${major}`, '--no-audit', '--no-fund', '--loglevel=error'], { stdio: 'inherit' })
  const version = versionOf(bin)
  if (r.status !== 0 || !version?.startsWith(`v${major}.`)) {
    throw new Error(`node@${major} did not install a working binary at ${bin} (npm exited ${r.status})`)
  }
  return { bin, version }
}

/** Counts from a Vitest JSON report (a failed run without a failing test counts as one failure). */
function vitestCounts(file, ok) {
  if (!existsSync(file)) return { passed: 0, failed: 1 }
  const r = JSON.parse(readFileSync(file, 'utf8'))
  return { passed: r.numPassedTests, failed: r.numFailedTests || (ok ? 0 : 1) }
}

mkdirSync(OUT, { recursive: true })
let passed = 0
let failed = 0
const summary = []
for (const major of lines.length ? lines : LINES) {
  const t0 = Date.now()
  let line
  try {
    line = ensureLine(major)
  } catch (error) {
    console.error(error instanceof Error ? error.message : error)
    failed += 1
    summary.push(`FAIL node ${major}: not installed`)
    continue
  }
  const installS = (Date.now() - t0) / 1000
  // Chosen files run as unit files; a full run adds the integration project on the chosen lines.
  const projects = vitestArgs.length || !INTEGRATION_LINES.includes(major) ? ['unit'] : ['unit', 'integration']
  for (const project of projects) {
    const report = `${OUT}/node-lines-${major}-${project}.json`
    rmSync(report, { force: true })
    console.log(`\n--- node ${line.version}: vitest run --project ${project} ${vitestArgs.join(' ')}`)
    const t1 = Date.now()
    // That line's binary first on PATH too, so tests that start `node` (the built server) get the same line.
    const r = spawnSync(
      line.bin,
      ['node_modules/vitest/vitest.mjs', 'run', '--project', project, '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...vitestArgs],
      { stdio: 'inherit', env: { ...process.env, PATH: `${path.dirname(line.bin)}${path.delimiter}${process.env.PATH ?? ''}` } },
    )
    const counts = vitestCounts(report, r.status === 0)
    passed += counts.passed
    failed += counts.failed
    const runS = (Date.now() - t1) / 1000
    summary.push(
      `${r.status === 0 ? 'ok  ' : 'FAIL'} node ${line.version} ${project} (${runS.toFixed(1)} s${installS >= 1 ? `, install ${installS.toFixed(1)} s` : ''}): ${counts.passed} passed, ${counts.failed} failed`,
    )
  }
}
writeFileSync(`${OUT}/node-lines.json`, JSON.stringify({ passed, failed }))
console.log(`\n${summary.join('\n')}`)
process.exit(failed > 0 ? 1 : 0)
