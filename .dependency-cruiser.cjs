// The layering of the code, checked by `npm run lint` (depcruise for files, scripts/lint-layers.mjs
// for cycles between lib/ folders). Every lib/ folder and top-level file sits in one layer and
// imports only from its own layer or those below it:
//
//   vocabulary      errors, log, process slots, config, support contacts, lib/http (headers, error
//                   bodies, the operation and route envelope), lib/telemetry (OpenTelemetry)
//   infrastructure  lib/db (a leaf), lib/redis.ts, lib/upstream, lib/dns, lib/ratelimit, timeout,
//                   circuit breaker, shutdown, drizzle/
//   domains         the ten API domains (lib/<domain>/; health is a surface), lib/datasets, lib/view (browser-safe)
//   surfaces        REST operations (lib/operations.ts), lib/openapi, lib/mcp, the query engine
//                   (lib/query, lib/saved-views, lib/ingest, lib/access), lib/request-log,
//                   lib/health, lib/jobs, lib/alerts
//   wiring          lib/gate (API and query gates), lib/startup.ts (the composition root), app/,
//                   proxy.ts, instrumentation.ts
//
// bench/, scripts/ and tests/ share test-support/ (loopback fakes, the app launcher); bench/ and
// scripts/ never import tests/.

const LAYERS = {
  vocabulary: ['lib/(errors|log|process-slot|config|support)\\.ts$', 'lib/http/', 'lib/telemetry/'],
  infrastructure: ['lib/(db|upstream|dns|ratelimit)/', 'lib/(redis|timeout|circuit-breaker|shutdown)\\.ts$', 'drizzle/'],
  domains: ['lib/(blog|bookings|deviceos|directory|domains|generate|ipcheck|office|pds|policies|datasets|view)/'],
  surfaces: ['lib/operations\\.ts$', 'lib/(openapi|mcp|query|saved-views|ingest|access|request-log|health|jobs|alerts)/'],
  wiring: ['lib/gate/', 'lib/startup\\.ts$', 'app/', 'components/', 'proxy\\.ts$', 'instrumentation\\.ts$'],
}
const NAMES = Object.keys(LAYERS)
const pattern = (names) => `^(${names.flatMap((n) => LAYERS[n]).join('|')})`
// One rule per layer: nothing in it imports from a layer above it.
const layerRules = NAMES.slice(0, -1).map((name, i) => ({
  name: `${name}-imports-nothing-above-it`,
  severity: 'error',
  comment: `The ${name} layer imports only from ${NAMES.slice(0, i + 1).join(', ')}.`,
  from: { path: pattern([name]) },
  to: { path: pattern(NAMES.slice(i + 1)) },
}))
// Every lib/ module is in a layer.
const ALL = pattern(NAMES)
// Server-only modules a browser bundle must never reach.
const SERVER =
  '^(lib/saved-views/(views|tables)|lib/(db|query|ingest|request-log|jobs|health|mcp|access|upstream|dns|datasets/storage)/|lib/(config|log|redis|startup|shutdown)\\.ts$|lib/telemetry/|drizzle/|node_modules/(pg|@electric-sql|drizzle-orm|server-only)/)'

module.exports = {
  forbidden: [
    { name: 'no-cycles', severity: 'error', comment: 'Import cycles make start-up order and bundling fragile.', from: {}, to: { circular: true } },
    ...layerRules,
    {
      name: 'every-lib-module-in-a-layer',
      severity: 'error',
      comment: 'A new lib/ folder or top-level file is given a layer in LAYERS above.',
      from: { path: '^lib/', pathNot: ALL },
      to: {},
    },
    {
      name: 'db-is-a-leaf',
      severity: 'error',
      comment: 'The database handle knows drivers and migrations, not datasets: features register what they need (onDatabaseReady).',
      from: { path: '^lib/db/' },
      to: { path: '^(lib|app|components|drizzle)/', pathNot: '^lib/(db/|config\\.ts|log\\.ts|process-slot\\.ts|errors\\.ts)' },
    },
    {
      name: 'vocabulary-core-imports-no-app-code',
      severity: 'error',
      comment:
        'Errors, log, header names and process slots are what everything else uses: they import no application module (the log reads its level from config).',
      from: { path: '^lib/(errors|log|process-slot)\\.ts$|^lib/http/headers\\.ts$' },
      to: { path: '^(lib|app|components|drizzle)/', pathNot: '^lib/(process-slot|config)\\.ts$' },
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
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
}
