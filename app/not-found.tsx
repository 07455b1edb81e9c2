import type { Metadata } from 'next'
import Link from 'next/link'
import { headers } from 'next/headers'
import { StatusPage } from '@/components/query/status-page'
import styles from '@/components/query/query.module.css'
import { queryBasePath } from '@/lib/access/query-host'
import { QUERY_HOME_HEADER, REQUEST_ID_HEADER } from '@/lib/http/headers'

export const metadata: Metadata = { title: 'Page not found', robots: { index: false } }

// Any address no page or route answers: the same explanation as the query application's refusals,
// with a way back (the query application's home when the address was under it).
export default async function NotFound() {
  const h = await headers()
  const home = h.get(QUERY_HOME_HEADER)
  const inQuery = home !== null
  const back = inQuery ? queryBasePath(home) || '/' : '/'
  return (
    <div className={styles.shell}>
      <StatusPage
        status={404}
        title="Page not found"
        what="There is no page at this address."
        next={
          <>
            Check the address for a typing mistake, or go to <Link href={back}>{inQuery ? 'the query application' : 'the home page'}</Link>
            {inQuery ? null : (
              <>
                {' '}
                or <Link href="/api/docs">the API reference</Link>
              </>
            )}
            .
          </>
        }
        requestId={h.get(REQUEST_ID_HEADER)}
      />
    </div>
  )
}
