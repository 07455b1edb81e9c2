import { sql } from 'drizzle-orm'
import { boolean, index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core'
import { id, at, demo, rollupTable } from '@/lib/datasets/storage/columns'
import { definition } from '@/lib/datasets/domain-checks/definition'

export const domainChecks = pgTable(
  'domain_checks',
  {
    id: id(),
    checkedAt: at('checked_at').notNull(),
    domain: text('domain').notNull(),
    checkName: text('check_name').notNull(),
    grade: text('grade'),
    score: integer('score'),
    status: text('status').notNull(),
    findings: text('findings').notNull().default(''),
    previousStatus: text('previous_status'),
    changed: boolean('changed').notNull().default(false),
    change: text('change'),
    demo: demo(),
  },
  (t) => [
    primaryKey({ name: 'domain_checks_pkey', columns: [t.checkedAt, t.id] }),
    // The previous run's row of each domain and check (change detection).
    index('domain_checks_domain_check_time_idx').on(t.domain, t.checkName, t.checkedAt),
    index('domain_checks_check_time_idx').on(t.checkName, t.checkedAt),
    index('domain_checks_status_time_idx').on(t.status, t.checkedAt),
    index('domain_checks_grade_time_idx').on(t.grade, t.checkedAt),
    index('domain_checks_changed_time_idx')
      .on(t.checkedAt)
      .where(sql`changed`),
  ],
)

export const domainChecksRollup = rollupTable(definition)
