import type { NextConfig } from 'next'
import { INGEST_BODY_MAX_BYTES } from './lib/http/body-sizes'

const nextConfig: NextConfig = {
  poweredByHeader: false,
  // Several instances of one build behind a balancer (docs/deployment.md “Several instances”): the
  // deployment's id, set at build time, marks its assets and navigations so that a browser that
  // meets another deployment during a rollout reloads instead of mixing versions. Unset: Next's own
  // NEXT_DEPLOYMENT_ID (or none).
  deploymentId: process.env.DEPLOYMENT_ID || process.env.NEXT_DEPLOYMENT_ID || undefined,
  // proxy.ts answers the trailing-slash redirect itself, so that it carries a request id.
  skipTrailingSlashRedirect: true,
  experimental: {
    // The proxy buffers request bodies up to this size and silently cuts the rest. Set just above
    // the largest body any route accepts (a Logpush batch), so a cut body is always over its
    // route's own limit and answered 413, never processed short. server.mjs cuts each body at its
    // route's limit before this buffer fills.
    proxyClientMaxBodySize: INGEST_BODY_MAX_BYTES + 1,
  },
  // Packages with WASM or native pieces are loaded from node_modules at run time, not bundled.
  // Migrations are read from ./drizzle at start-up; serverless bundles must carry them.
  outputFileTracingIncludes: { '/**': ['./drizzle/*.sql', './drizzle/meta/*.json'] },
  // The OpenTelemetry SDK (loaded only when telemetry is on) likewise, with its gRPC and protobuf
  // pieces; the API package too, so that server.mjs and every bundle share one copy.
  serverExternalPackages: [
    'libpg-query',
    'pgsql-deparser',
    '@electric-sql/pglite',
    'pg',
    'ioredis',
    'sanitize-html',
    '@opentelemetry/api',
    '@opentelemetry/sdk-node',
    '@opentelemetry/sdk-trace-base',
    '@opentelemetry/exporter-trace-otlp-http',
    '@opentelemetry/exporter-trace-otlp-proto',
    '@opentelemetry/exporter-trace-otlp-grpc',
  ],
}

export default nextConfig
