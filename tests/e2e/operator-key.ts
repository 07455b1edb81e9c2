// The local operator's key of the end-to-end server (server.mjs accepts a preset LOCAL_OPERATOR_KEY;
// `npm start` makes a random one and prints its link). Browsers start with it as the cookie that
// link sets, as a person at the machine who opened it.
export const E2E_OPERATOR_KEY = 'e2e-local-operator-key'

/** The end-to-end server's CRON_SECRET: tests/e2e/query-alert-checks.spec.ts runs the alerts job through its cron route. */
export const E2E_CRON_SECRET = 'e2e-cron-secret-0123456789abcdef'
