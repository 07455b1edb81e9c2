import type { NextConfig } from 'next'

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Packages with WASM or native pieces are loaded from node_modules at run time, not bundled.
  // Migrations are read from ./drizzle at start-up; serverless bundles must carry them.
  outputFileTracingIncludes: { '/**': ['./drizzle/*.sql', './drizzle/meta/*.json'] },
  serverExternalPackages: ['libpg-query', 'pgsql-deparser', '@electric-sql/pglite', 'pg', 'ioredis', 'sanitize-html'],
}

export default nextConfig
