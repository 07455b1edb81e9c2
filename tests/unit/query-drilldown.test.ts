import { beforeAll, describe, expect, it } from 'vitest'
import { DATASETS, type ColumnDef } from '@/lib/datasets/catalog'
import { addClause, canFilterBy, valueClause } from '@/lib/view/drilldown'
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
