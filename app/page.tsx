import Link from 'next/link'
import pkg from '@/package.json'
import { config } from '@/lib/config'
import styles from './page.module.css'

const GROUPS = [
  ['health', 'Service health'],
  ['pds', 'Bluesky PDS statistics'],
  ['blog', 'Blog posts and authors'],
  ['domains', 'Domains and mail security'],
  ['directory', 'Entra ID tools'],
  ['deviceosversion', 'Apple OS versions'],
  ['ipcheck', 'IP lookup'],
  ['generate', 'GUIDs and ticks'],
  ['policies', 'Platform policies'],
  ['bookings', 'Bookings redirect'],
] as const

// GET / - what the service is and where its surfaces live
export default function Home() {
  return (
    <main className={styles.main}>
      <h1>Utility API</h1>
      <p className={styles.lead}>
        A public REST API with data about the platform and a few general-purpose tools, an MCP tool server for AI
        assistants, and an internal query application. Version {pkg.version}.
      </p>
      <ul className={styles.links}>
        <li>
          <Link href="/api/docs">API reference</Link>
          <p>Interactive documentation of every operation.</p>
        </li>
        <li>
          <a href="/api/openapi.json">OpenAPI document</a>
          <p>The machine-readable description (OpenAPI 3.1).</p>
        </li>
        <li>
          <Link href="/api/mcp" prefetch={false}>MCP endpoint</Link> <code>POST /api/mcp</code>
          <p>Model Context Protocol tools over stateless streamable HTTP; read-only, no credentials.</p>
        </li>
        <li>
          <Link href="/query" prefetch={false}>Query application</Link>
          <p>Internal: dataset queries and dashboards behind the access policy.</p>
        </li>
      </ul>
      <h2>Groups</h2>
      <ul className={styles.groups}>
        {GROUPS.map(([path, label]) => (
          <li key={path}>
            <code>/api/{path}</code> — {label}
          </li>
        ))}
      </ul>
      <p>
        Limits: {config.RATE_LIMIT_MAX} requests per {config.RATE_LIMIT_WINDOW_S} seconds per client IP. Support:{' '}
        <a href={`mailto:${config.SUPPORT_EMAIL}`}>{config.SUPPORT_EMAIL}</a>.
      </p>
    </main>
  )
}

export const dynamic = 'force-dynamic'
