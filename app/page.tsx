import Link from 'next/link'
import { headers } from 'next/headers'
import pkg from '@/package.json'
import { config } from '@/lib/config'
import { referenceOutline } from '@/lib/openapi/outline'
import styles from './page.module.css'

const MCP_TAG = 'Tool server'

/** The origin this page was requested at, so the examples below work as pasted. */
async function ownOrigin(): Promise<string> {
  const h = await headers()
  const host = h.get('x-forwarded-host')?.split(',')[0].trim() || h.get('host')
  const configured = new URL(config.PUBLIC_BASE_URL)
  if (!host) return configured.origin
  const proto = h.get('x-forwarded-proto')?.split(',')[0].trim() || (configured.host === host ? configured.protocol.replace(':', '') : 'http')
  return `${proto}://${host}`
}

// GET / - what the service is, where its surfaces live and how to connect an MCP client
export default async function Home() {
  const origin = await ownOrigin()
  const mcpUrl = `${origin}/api/mcp`
  const outline = referenceOutline()
  const groups = outline.filter((g) => g.tag !== MCP_TAG && g.operations.some((op) => !op.internal))
  const mcpAnchor = outline.find((g) => g.tag === MCP_TAG)?.anchor
  const clientConfig = JSON.stringify({ mcpServers: { 'utility-api': { type: 'http', url: mcpUrl } } }, null, 2)
  const curl = [
    `curl ${mcpUrl} \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -H 'Accept: application/json, text/event-stream' \\`,
    `  -d '{"jsonrpc":"2.0","id":1,"method":"tools/list"}'`,
  ].join('\n')

  return (
    <main className={styles.main}>
      <h1>Utility API</h1>
      <p className={styles.lead}>
        A public REST API with data about the platform and a few general-purpose tools, an MCP tool server, and an internal query application. Version{' '}
        {pkg.version}.
      </p>
      <ul className={styles.links}>
        <li>
          <Link href="/api/docs">API reference</Link>
          <p>Interactive documentation of every operation, with real examples.</p>
        </li>
        <li>
          <a href="/api/openapi.json">OpenAPI document</a>
          <p>The machine-readable description (OpenAPI 3.1).</p>
        </li>
        <li>
          <Link href="/query" prefetch={false}>
            Query application
          </Link>
          <p>Internal: dataset queries and dashboards behind the access policy.</p>
        </li>
      </ul>

      <h2 id="groups">API groups</h2>
      <ul className={styles.groups} aria-labelledby="groups">
        {groups.map((group) => (
          <li key={group.tag}>
            <Link href={`/api/docs#${group.anchor}`}>{group.tag}</Link> <code>{group.prefix}</code>
            <p>{group.description}</p>
          </li>
        ))}
      </ul>

      <h2 id="mcp">Connect an MCP client</h2>
      <p>
        The tool server at <code>{mcpUrl}</code> speaks the Model Context Protocol over streamable HTTP: stateless, read-only tools over the same data as the
        API, no credentials. It answers JSON-RPC messages sent with <code>POST</code>; a browser opening it gets 405, so point an MCP client at it instead.
      </p>
      <h3>Client configuration</h3>
      <p>
        For clients that read an <code>mcpServers</code> file (such as <code>.mcp.json</code>):
      </p>
      <pre className={styles.code} tabIndex={0} aria-label="MCP client configuration">
        <code>{clientConfig}</code>
      </pre>
      <h3>Try it with curl</h3>
      <p>Lists the tools with their input and output schemas:</p>
      <pre className={styles.code} tabIndex={0} aria-label="curl example">
        <code>{curl}</code>
      </pre>
      {mcpAnchor && (
        <p>
          <Link href={`/api/docs#${mcpAnchor}`}>Tool server reference</Link>: the messages it accepts, its answers and errors.
        </p>
      )}

      <p className={styles.footer}>
        Limits: {config.RATE_LIMIT_MAX} requests per {config.RATE_LIMIT_WINDOW_S} seconds per client IP. Support:{' '}
        <a href={`mailto:${config.SUPPORT_EMAIL}`}>{config.SUPPORT_EMAIL}</a>.
      </p>
    </main>
  )
}

export const dynamic = 'force-dynamic'
