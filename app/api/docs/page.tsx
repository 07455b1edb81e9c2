import type { Metadata } from 'next'
import { ApiReference } from '@/components/api-reference'
import { getOpenApiDocument } from '@/lib/openapi/document'
import { referenceOutline } from '@/lib/openapi/outline'
import styles from './docs.module.css'

export const metadata: Metadata = { title: 'API reference · Utility API' }

// GET /api/docs - the interactive reference over /api/openapi.json, which loads nothing from other
// origins; until its script has loaded, an outline of every operation rendered here.
export default function DocsPage() {
  const { info } = getOpenApiDocument()
  const groups = referenceOutline()
  return (
    <ApiReference>
      <main className={styles.outline}>
        <h1>{info.title} reference</h1>
        <p className={styles.lead}>
          Version {info.version}. Every operation below, grouped as in the reference; the <a href="/api/openapi.json">OpenAPI document</a> describes them all.
        </p>
        <p className={styles.status} role="status">
          Loading the interactive reference…
        </p>
        <noscript>
          <p className={styles.status}>The interactive reference needs JavaScript; the OpenAPI document holds the same.</p>
        </noscript>
        <nav aria-label="Operations">
          {groups.map((group) => (
            <section key={group.tag} aria-labelledby={group.anchor}>
              <h2 id={group.anchor}>
                <a href={`#${group.anchor}`}>{group.tag}</a>
              </h2>
              <p className={styles.description}>{group.description}</p>
              <ul className={styles.operations}>
                {group.operations.map((op) => (
                  <li key={op.anchor}>
                    <a href={`#${op.anchor}`}>
                      <span className={styles.method} data-method={op.method}>
                        {op.method}
                      </span>
                      <code className={styles.path}>{op.path}</code>
                      <span className={styles.summary}>
                        {op.summary}
                        {op.deprecated && <span className={styles.badge}>deprecated</span>}
                        {op.internal && <span className={styles.badge}>internal</span>}
                      </span>
                    </a>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </nav>
      </main>
    </ApiReference>
  )
}
