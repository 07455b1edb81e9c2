// `npm run db:seed -- --rows N [--datasets requests,dns] [--days 30] [--append]`: demonstration rows
// (demo = true) for every dataset in the configured database, spread over the last --days days.
// Earlier demo rows are replaced unless --append; real rows are never touched.
// `npm run db:seed -- --remove-demo`: deletes every demo row (those the embedded database gets at
// its first start included) and leaves real rows. With PGlite, stop the server first (one process
// owns its directory).
import { parseArgs } from 'node:util'
import { config } from '@/lib/config'
import { createDatabase, describeTarget } from '@/lib/db/client'
import { DATASET_IDS, type DatasetId } from '@/lib/datasets/catalog'
import { removeDemoRows } from '@/lib/datasets/demo'
import { seed } from '@/lib/datasets/seed'

async function main() {
  const { values } = parseArgs({
    options: {
      rows: { type: 'string', default: '1000' },
      datasets: { type: 'string' },
      days: { type: 'string', default: '30' },
      append: { type: 'boolean', default: false },
      'remove-demo': { type: 'boolean', default: false },
    },
  })
  if (values['remove-demo']) return removeDemo()
  const rows = Number(values.rows)
  const days = Number(values.days)
  if (!Number.isInteger(rows) || rows < 1) throw new Error('--rows must be a positive integer')
  if (!Number.isInteger(days) || days < 1) throw new Error('--days must be a positive integer')
  const datasets = values.datasets ? values.datasets.split(',').map((s) => s.trim()) : [...DATASET_IDS]
  const unknown = datasets.filter((d) => !(DATASET_IDS as readonly string[]).includes(d))
  if (unknown.length) throw new Error(`unknown dataset(s): ${unknown.join(', ')} (known: ${DATASET_IDS.join(', ')})`)

  const database = await createDatabase(config)
  try {
    await database.migrate()
    console.log(`seeding ${rows} demo rows per dataset over ${days} days into ${database.driver} (${describeTarget(config)})`)
    const t0 = performance.now()
    await seed(database.db, {
      rows,
      days,
      datasets: datasets as DatasetId[],
      append: values.append,
      onProgress: (d, done) => console.log(`  ${d}: ${done}`),
    })
    console.log(`done in ${((performance.now() - t0) / 1000).toFixed(1)} s`)
  } finally {
    await database.close()
  }
}

async function removeDemo() {
  const database = await createDatabase(config)
  try {
    await database.migrate()
    const removed = await removeDemoRows(database)
    const total = Object.values(removed).reduce((a, b) => a + b, 0)
    console.log(
      `removed ${total} demo rows from ${describeTarget(config)}: ${Object.entries(removed)
        .map(([d, n]) => `${d} ${n}`)
        .join(', ')}`,
    )
  } finally {
    await database.close()
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
