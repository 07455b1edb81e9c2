import next from 'eslint-config-next'

const config = [
  ...next,
  {
    ignores: [
      '.next/**',
      'node_modules/**',
      '.data/**',
      '.cache/**',
      'test-results/**',
      'playwright-report/**',
      '.test-results/**',
      'drizzle/meta/**',
      'next-env.d.ts',
    ],
  },
]

export default config
