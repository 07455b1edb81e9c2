import { beforeAll, describe, expect, it } from 'vitest'
import { DATASETS, type ColumnDef } from '@/lib/datasets/catalog'
import { addClause, canFilterBy, searchClause, SEARCH_TEXT_MAX, valueClause } from '@/lib/view/drilldown'
import { parseViewState } from '@/lib/view/view-state'
import { DATASET_IDS } from '@/lib/datasets/catalog'
import { checkFilterSync, loadFilterParser } from '@/lib/query/filter'

// Click to filter: the clauses a cell or dashboard entry adds, checked by the filter's own
// allow-list exactly as a typed filter is.

const col = (dataset: keyof typeof DATASETS, name: string) => DATASETS[dataset].columns.find((c) => c.name === name) as ColumnDef

beforeAll(() => loadFilterParser())

describe('valueClause', () => {
  it.each([
    ['requests', 'status', 404, '=', '"status" = 404', 'status = 404'],
    ['requests', 'status', 404, '!=', '"status" != 404', 'status <> 404'],
    ['requests', 'route', "/api/o'brien", '=', `"route" = '/api/o''brien'`, `route = '/api/o''brien'`],
    [
      'requests',
      'user_agent',
      `x'); DROP TABLE request_log; --`,
      '=',
      `"user_agent" = 'x''); DROP TABLE request_log; --'`,
      `user_agent = 'x''); DROP TABLE request_log; --'`,
    ],
    ['requests', 'mcp_tool', null, '=', '"mcp_tool" IS NULL', 'mcp_tool IS NULL'],
    ['requests', 'mcp_tool', null, '!=', '"mcp_tool" IS NOT NULL', 'mcp_tool IS NOT NULL'],
    ['requests', 'rate_limited', true, '=', '"rate_limited" = true', 'rate_limited = true'],
    ['requests', 'client_ip', '198.51.100.0', '=', `"client_ip" = '198.51.100.0'`, `client_ip = '198.51.100.0'`],
    ['requests', 'duration_ms', 3.87, '=', '"duration_ms" = 3.87', 'duration_ms = 3.87'],
    ['sessions', 'bytes_sent', 12_345_678, '=', '"bytes_sent" = 12345678', 'bytes_sent = 12345678'],
    ['dns', 'query_name', 'ünïcödé.example', '=', `"query_name" = 'ünïcödé.example'`, `query_name = 'ünïcödé.example'`],
    // The deparser writes a backslash as an escape string: the same one-character value.
    ['dns', 'query_name', '\\', '=', `"query_name" = '\\'`, `query_name = E'\\\\'`],
  ] as const)('%s.%s %j (%s) → %s, run as %s', (dataset, name, value, op, clause, regenerated) => {
    expect(valueClause(col(dataset, name), value, op)).toBe(clause)
    expect(checkFilterSync(clause, DATASETS[dataset]).sql).toBe(regenerated)
  })

  it('leaves timestamps to the range', () => {
    expect(canFilterBy(col('requests', 'time'))).toBe(false)
    expect(canFilterBy(col('requests', 'status'))).toBe(true)
  })
})

describe('addClause', () => {
  it('narrows the current filter, keeping an OR together', () => {
    expect(addClause('', '"status" = 404')).toBe('"status" = 404')
    expect(addClause('status >= 500', '"method" = \'GET\'')).toBe(`status >= 500 AND "method" = 'GET'`)
    expect(addClause('status = 500 OR status = 502', '"method" = \'GET\'')).toBe(`(status = 500 OR status = 502) AND "method" = 'GET'`)
    const combined = addClause('status = 500 OR status = 502', '"method" = \'GET\'')
    expect(checkFilterSync(combined, DATASETS.requests).sql).toBe(`(status = 500 OR status = 502) AND method = 'GET'`)
  })
})

describe('searchClause', () => {
  it.each(DATASET_IDS)('%s: an ILIKE over every text column that the filter checker accepts', (dataset) => {
    const texts = DATASETS[dataset].columns.filter((c) => c.type === 'text').map((c) => c.name)
    const clause = searchClause(DATASETS[dataset].columns, ` 50%_off\\ o'brien `)
    if (!texts.length) return expect(clause).toBeNull()
    expect(clause).toBe(`(${texts.map((c) => `"${c}" ILIKE '%50\\%\\_off\\\\ o''brien%'`).join(' OR ')})`)
    const checked = checkFilterSync(addClause('true', clause!), DATASETS[dataset])
    for (const c of texts) expect(checked.sql).toContain(c)
  })

  it('is nothing for empty text, and cut at its length limit', () => {
    expect(searchClause(DATASETS.requests.columns, '   ')).toBeNull()
    expect(searchClause(DATASETS.requests.columns, 'x'.repeat(500))).toContain(`'%${'x'.repeat(SEARCH_TEXT_MAX)}%'`)
  })

  it('q in a page URL becomes a clause of the filter, kept with the typed one', () => {
    const { state, notices } = parseViewState({ dataset: 'requests', filter: 'status >= 500', q: 'curl' })
    expect(notices).toEqual([])
    expect(state.filter).toBe(`status >= 500 AND ${searchClause(DATASETS.requests.columns, 'curl')}`)
  })
})
