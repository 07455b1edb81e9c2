import { defineConfig } from '@playwright/test'
import { E2E_CRON_SECRET, E2E_OPERATOR_KEY } from './tests/e2e/operator-key'

const PORT = Number(process.env.E2E_PORT ?? 3210)

// Debian's Chromium (apt-get install chromium); no browser is downloaded.
export default defineConfig({
  testDir: 'tests/e2e',
  outputDir: 'test-results/e2e',
  workers: 1,
  retries: process.env.CI ? 1 : 0,
  timeout: 60_000,
  // A page is rendered on the server from database queries: on a busy two-core machine one can take
  // more than the default 5 s to arrive after a click, which is slow, not wrong.
  expect: { timeout: 15_000 },
  use: {
    baseURL: `http://127.0.0.1:${PORT}`,
    trace: 'retain-on-failure',
    // The cookie the start-up link sets (HttpOnly, SameSite=Strict, named for the port), as after opening it.
    storageState: {
      cookies: [
        {
          name: `local_operator_key_${PORT}`,
          value: E2E_OPERATOR_KEY,
          domain: '127.0.0.1',
          path: '/',
          expires: -1,
          httpOnly: true,
          secure: false,
          sameSite: 'Strict',
        },
      ],
      origins: [],
    },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  webServer: {
    // The query pages need rows: demo data goes into the server's own PGlite directory first (one
    // process owns a PGlite directory, so before the server opens it). Identity is the local
    // operator: no access settings, a loopback listener and browser, and this start's key.
    command: 'npm run --silent db:seed -- --rows 5000 && node server.mjs',
    url: `http://127.0.0.1:${PORT}/api/health`,
    reuseExistingServer: false,
    timeout: 240_000, // seeding creates 31 days of partitions and rebuilds the rollups in WASM Postgres
    env: {
      PORT: String(PORT),
      HOST: '127.0.0.1',
      NEXT_TELEMETRY_DISABLED: '1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      DATABASE_URL: '',
      PGLITE_DIR: '.data/e2e-pglite',
      LOCAL_OPERATOR_KEY: E2E_OPERATOR_KEY,
      // Ingest on: tests/e2e/query-numbers.spec.ts loads a batch of known rows through Logpush's endpoint.
      LOGPUSH_SECRET: 'e2e-logpush-secret-0123456789abcdef',
      // Cron routes on: tests/e2e/query-alert-checks.spec.ts runs the alerts job.
      CRON_SECRET: E2E_CRON_SECRET,
      // One operator drives the whole suite (hundreds of pages and their link prefetches within
      // minutes): the query application's per-person limit is tested in tests/integration, not here.
      QUERY_RATE_LIMIT_MAX: '100000',
    },
  },
})
