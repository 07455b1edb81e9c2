import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const alias = { '@': fileURLToPath(new URL('./', import.meta.url)), 'server-only': fileURLToPath(new URL('./test-support/server-only.ts', import.meta.url)) }

export default defineConfig({
  resolve: { alias },
  test: {
    projects: [
      {
        resolve: { alias },
        test: { name: 'unit', include: ['tests/unit/**/*.test.ts'], environment: 'node' },
      },
      {
        resolve: { alias },
        test: {
          name: 'integration',
          include: ['tests/integration/**/*.test.ts'],
          environment: 'node',
          // Each file starts its own server (with its own fake upstreams); run them one at a time.
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 90_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // Three built instances behind HAProxy (deploy/haproxy.cfg) on one Postgres and one Redis:
          // minutes of load and rolling restarts, one file at a time.
          name: 'scale',
          include: ['tests/scale/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 600_000,
          hookTimeout: 180_000,
        },
      },
      {
        resolve: { alias },
        test: {
          // Fault injection against the built server (proxies in front of Redis and Postgres).
          name: 'fault',
          include: ['tests/fault/**/*.test.ts'],
          environment: 'node',
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 90_000,
        },
      },
    ],
  },
})
