import next from 'eslint-config-next'

export default [
  ...next,
  { ignores: ['.next/**', 'node_modules/**', '.data/**', 'test-results/**', 'playwright-report/**', 'drizzle/meta/**', 'next-env.d.ts'] },
]
