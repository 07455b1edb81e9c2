import { getTableColumns } from 'drizzle-orm'
import { getTableConfig } from 'drizzle-orm/pg-core'
import { describe, expect, it } from 'vitest'
import { DATASET_IDS, DATASETS } from '@/lib/datasets/catalog'
import { DATASET_STORAGE } from '@/lib/datasets/registry'

// Each dataset is one folder (definition, tables, seed) plus its line in the catalog and the
// registry; these checks keep the parts of a folder in step with each other.

describe.each(DATASET_IDS.map((id) => [id]))('dataset %s', (id) => {
  const dataset = DATASETS[id]
  const storage = DATASET_STORAGE[id]
  const columns = new Set(dataset.columns.map((c) => c.name))

  it('is listed under its own id', () => expect(dataset.id).toBe(id))

  it('is stored in the table its definition names, with every column it shows', () => {
    expect(getTableConfig(storage.rows).name).toBe(dataset.table)
    const stored = new Set(Object.values(getTableColumns(storage.rows)).map((c) => c.name))
    for (const name of columns) expect(stored, name).toContain(name)
  })

  it('rolls up only its own columns, into the rollup table named after it', () => {
    expect(getTableConfig(storage.rollup).name).toBe(`${dataset.table}_rollup`)
    const { dimensions, sums, latency } = dataset.rollup
    for (const name of [...dimensions, ...sums, ...(latency ? [latency.column, latency.errorStatusColumn] : [])]) expect(columns, name).toContain(name)
    const rolled = new Set(Object.values(getTableColumns(storage.rollup)).map((c) => c.name))
    for (const name of [...dimensions, ...sums]) expect(rolled, name).toContain(name)
    // Hour-only (capped) dimensions are dimensions, and no series counts by one (it would need the rows).
    for (const name of dataset.rollup.hourOnly ?? []) expect(dimensions, name).toContain(name)
    for (const panel of dataset.panels)
      if (panel.kind === 'timeseries')
        for (const series of panel.series)
          if (series.aggregate === 'count' && series.where) expect(dataset.rollup.hourOnly ?? [], series.key).not.toContain(series.where.column)
  })

  it('keeps in its rollup what each dashboard panel reads, so no panel falls back to the rows for an unfiltered range', () => {
    const { dimensions, sums, latency } = dataset.rollup
    for (const panel of dataset.panels) {
      if (panel.kind === 'breakdown' || panel.kind === 'top') expect(dimensions, panel.id).toContain(panel.column)
      if (panel.kind === 'latency') expect(latency, panel.id).toEqual({ column: panel.column, errorStatusColumn: panel.errorStatusColumn })
      if (panel.kind === 'timeseries')
        for (const series of panel.series) {
          if (series.aggregate === 'sum') expect(sums, series.key).toContain(series.column)
          else if (series.where) expect(dimensions, series.key).toContain(series.where.column)
        }
    }
  })

  it('generates demo rows for its own table', () => {
    const statement = storage.seedSql({
      target: { table: dataset.table, idSequence: null, now: '2026-11-24T00:00:00Z', from: '2026-11-23T00:00:00Z', to: '2026-11-24T00:00:00Z' },
      days: 1,
      rows: '(SELECT 1) s',
    })
    expect(statement.startsWith(`INSERT INTO ${dataset.table} (`)).toBe(true)
  })
})

describe.each(DATASET_IDS.filter((id) => DATASETS[id].logpush).map((id) => [id]))('Logpush dataset %s', (id) => {
  it('names the Logpush field of every column but demo', () => {
    for (const column of DATASETS[id].columns.filter((c) => c.name !== 'demo')) expect(column.source, column.name).toBeTruthy()
  })
})
