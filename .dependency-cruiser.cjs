// The layering of the code, checked by `npm run lint` (depcruise). Rooms and what each may use:
//
//   leaves          lib/errors.ts, lib/log.ts, lib/process-slot.ts, lib/http/headers.ts,
//                   lib/jobs/names.ts (job ids and default schedules), lib/config.ts, lib/db/
//   infrastructure  the leaves, lib/upstream/, lib/dns/, lib/redis.ts, lib/timeout.ts,
//                   lib/circuit-breaker.ts, drizzle/ — never import a feature
//   features        the domains (lib/<domain>/), lib/alerts, lib/datasets, lib/ingest, lib/query,
//                   lib/request-log, lib/jobs, lib/health, lib/mcp, lib/access
//   browser-safe    lib/view/, components/**/*-client.tsx — no server module
//   wiring          lib/startup.ts (the composition root), app/, proxy.ts, instrumentation.ts
//
// bench/, scripts/ and tests/ share test-support/ (loopback fakes, the app launcher); bench/ and
// scripts/ never import tests/.

const FEATURES = '^lib/(access|alerts|blog|bookings|datasets|deviceos|directory|domains|generate|health|ingest|ipcheck|jobs|mcp|office|pds|policies|query|request-log|view)/'
const INFRA = '^(lib/(db|upstream|dns)/|lib/(config|log|errors|process-slot|redis|timeout|circuit-breaker)\\.ts$|drizzle/)'
// Server-only modules a browser bundle must never reach.
const SERVER = '^(lib/(db|query|ingest|request-log|jobs|health|mcp|access|upstream|dns|datasets/storage)/|lib/(config|log|redis|startup|shutdown)\\.ts$|drizzle/|node_modules/(pg|@electric-sql|drizzle-orm|server-only)/)'

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Import cycles make start-up order and bundling fragile.', from: {}, to: { circular: true } },
    {
      name: 'leaves-import-no-app-code',
      severity: 'error',
      comment: 'Errors, log, header names, process slots and job ids are the vocabulary everything else uses: they import no application module (the log reads its level from config).',
      from: { path: '^lib/(errors|log|process-slot)\\.ts$|^lib/http/headers\\.ts$|^lib/jobs/names\\.ts$' },
      to: { path: '^(lib|app|components|drizzle)/', pathNot: '^lib/(process-slot|config)\\.ts$' },
    },
    {
      name: 'config-is-a-leaf',
      severity: 'error',
      comment: 'Config reads the environment; it may name jobs (their default schedules are configuration) and nothing else of the application.',
      from: { path: '^lib/config\\.ts$' },
      to: { path: '^(lib|app|components|drizzle)/', pathNot: '^lib/jobs/(names|schedule)\\.ts$' },
    },
    {
      name: 'db-is-a-leaf',
      severity: 'error',
      comment: 'The database handle knows drivers and migrations, not datasets: features register what they need (onDatabaseReady).',
      from: { path: '^lib/db/' },
      to: { path: '^(lib|app|components|drizzle)/', pathNot: '^lib/(db/|config\\.ts|log\\.ts|process-slot\\.ts|errors\\.ts)' },
    },
    {
      name: 'infrastructure-imports-no-feature',
      severity: 'error',
      comment: 'Lower layers are told what they need at start-up (registrations), they do not import features.',
      from: { path: INFRA, pathNot: '^lib/config\\.ts$' },
      to: { path: FEATURES },
    },
    {
      name: 'browser-code-imports-no-server-module',
      severity: 'error',
      comment: 'Client components and lib/view run in the browser: they get server data through props.',
      from: { path: '^(lib/view/|components/.*-client\\.tsx$)' },
      to: { path: SERVER },
    },
    {
      name: 'tools-do-not-import-tests',
      severity: 'error',
      comment: 'bench/ and scripts/ share test-support/ with the tests instead of reaching into tests/.',
      from: { path: '^(bench|scripts)/' },
      to: { path: '^tests/' },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^(next|react|bun:|node:)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(\\.next|node_modules|test-results|\\.test-results|\\.data)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
    skipAnalysisNotInRules: true,
  },
}
