import type { Metadata } from 'next'
import styles from '@/components/query/query.module.css'

export const metadata: Metadata = { title: { default: 'Query application', template: '%s · Query application' }, robots: { index: false } }

// The query pages check access themselves (lib/access/server.ts): a layout is not re-rendered on
// client navigation, so it cannot be the place of a check.
export default function QueryLayout({ children }: { children: React.ReactNode }) {
  return <div className={styles.shell}>{children}</div>
}
