// `npm run job -- <name> [--dry-run]`: runs one scheduled job once, for system cron, a Kubernetes
// CronJob or any container scheduler (docs/jobs.md). The same runJob() as the cron
// routes and the internal HTTP operations: the same lock, a job_runs row with trigger `cli`.
// Prints one line; exit code 0 when the run succeeded (or was a dry run), 1 when it failed, 2 for
// a usage error, and 75 (EX_TEMPFAIL) when another run of the job held the lock ("already running").
import { parseArgs } from 'node:util'

const EXIT = { ok: 0, failed: 1, usage: 2, alreadyRunning: 75 } as const

async function main(): Promise<number> {
  // The result line is the output; the JSON event log shows warnings and errors only, unless asked.
  process.env.LOG_LEVEL ||= 'warn'
  const { JOB_NAMES, isJobName } = await import('@/lib/jobs/names')
  const usage = `usage: npm run job -- <${JOB_NAMES.join('|')}> [--dry-run]`
  let parsed
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { 'dry-run': { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    })
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${usage}`)
    return EXIT.usage
  }
  if (parsed.values.help) {
    console.log(usage)
    return EXIT.ok
  }
  const [name, ...extra] = parsed.positionals
  if (!name || extra.length > 0 || !isJobName(name)) {
    console.error(`${name && !isJobName(name) ? `unknown job "${name}"\n` : ''}${usage}`)
    return EXIT.usage
  }

  const { config } = await import('@/lib/config')
  const { getDatabase } = await import('@/lib/db/client')
  const { runJob } = await import('@/lib/jobs/run')
  if (!config.DATABASE_URL && !config.PGLITE_DIR.startsWith('memory://')) {
    // One process owns a PGlite directory: a server (or another run) on it makes this one refuse.
    const { DirectoryLockedError, lockDirectory } = await import('@/lib/db/directory-lock')
    try {
      lockDirectory(config.PGLITE_DIR)
    } catch (error) {
      if (!(error instanceof DirectoryLockedError)) throw error
      console.error(`${name}: not run: ${error.message} With a server running, call its cron route instead.`)
      return EXIT.failed
    }
  }
  const run = await runJob(name, { trigger: 'cli', dryRun: parsed.values['dry-run'] })
  await (await getDatabase().catch(() => null))?.close().catch(() => {})

  const seconds = (run.durationMs / 1000).toFixed(1)
  const history = run.recorded ? '' : ' (not recorded in job_runs)'
  if (run.outcome === 'skipped') {
    console.log(`${name}: already running: another run holds the lock; nothing done${history}`)
    return EXIT.alreadyRunning
  }
  const error = run.outcome === 'failed' && run.error && !run.summary.includes(run.error) ? ` Error: ${run.error}` : ''
  console.log(`${name}: ${run.outcome} in ${seconds} s: ${run.summary}${error}${history}`)
  return run.outcome === 'failed' ? EXIT.failed : EXIT.ok
}

main().then(
  (code) => process.exit(code),
  (error) => {
    // runJob never throws; this is a configuration or import failure.
    console.error(error instanceof Error ? error.message : error)
    process.exit(EXIT.failed)
  },
)
