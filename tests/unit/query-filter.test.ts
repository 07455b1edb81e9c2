import { getTableColumns } from 'drizzle-orm'
import { describe, expect, it } from 'vitest'
import { DATASET_STORAGE } from '@/lib/datasets/registry'
import { AppError } from '@/lib/errors'
import { DATASET_IDS, DATASETS, type ColumnType } from '@/lib/datasets/catalog'
import { loadModule, parseSync } from 'libpg-query'
import { checkFilter } from '@/lib/query/filter'
import { checkGrowthBudget } from '@/lib/query/filter-budget'
import { INJECTION_CORPUS } from '@/test-support/injection-corpus'

const requests = DATASETS.requests

async function rejection(filter: string, dataset = requests): Promise<string> {
  try {
    await checkFilter(filter, dataset)
  } catch (error) {
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('invalid_input')
    return (error as AppError).message
  }
  throw new Error(`accepted: ${filter}`)
}

describe('filter: allowed forms are regenerated from the tree', () => {
  it.each([
    ['status = 500', 'status = 500'],
    ["  method <> 'GET'  ", "method <> 'GET'"],
    ['status != 200', 'status <> 200'],
    ['status >= 500 AND duration_ms < 10.5', 'status >= 500 AND duration_ms < 10.5'],
    ["route LIKE '/api/%' OR route NOT LIKE '%health'", "route LIKE '/api/%' OR route NOT LIKE '%health'"],
    ["user_agent ILIKE '%curl%'", "user_agent ILIKE '%curl%'"],
    ['status IN (400, 404)', 'status IN (400, 404)'],
    ["country NOT IN ('US', 'GB')", "country NOT IN ('US', 'GB')"],
    ['mcp_tool IS NULL', 'mcp_tool IS NULL'],
    ['referrer IS NOT NULL', 'referrer IS NOT NULL'],
    ['status BETWEEN 400 AND 499', 'status BETWEEN 400 AND 499'],
    ['NOT rate_limited', 'NOT (rate_limited)'],
    ['rate_limited IS TRUE', 'rate_limited IS TRUE'],
    ['(status = 1 OR status = 2) AND api_key_present', '(status = 1 OR status = 2) AND api_key_present'],
    ["status::text LIKE '5%'", "status::text LIKE '5%'"],
    ["CAST(client_ip AS text) = '1.2.3.0'", "client_ip::text = '1.2.3.0'"],
    ["time > '2026-01-01'::timestamptz", '"time" > \'2026-01-01\'::timestamptz'],
    ["client_ip << '203.0.113.0/24'", "client_ip << '203.0.113.0/24'"],
    ["lower(method) = 'get' AND upper(country) = 'US' AND length(route) > 5", "lower(method) = 'get' AND upper(country) = 'US' AND length(route) > 5"],
    ["coalesce(country, '??') = '??'", "(COALESCE(country, '??')) = '??'"],
    ["trim(route) = '/api/health'", "TRIM(BOTH FROM route) = '/api/health'"],
    ['extract(hour from time) = 3', 'EXTRACT(HOUR FROM "time") = 3'],
    ["mcp_tool IS DISTINCT FROM 'x'", "mcp_tool IS DISTINCT FROM 'x'"],
    ['duration_ms / 1000 > 2', '(duration_ms / 1000) > 2'],
    ["route = 'it''s'", "route = 'it''s'"],
    ['status = 200 -- trailing comment', 'status = 200'],
  ])('%s', async (input, expected) => {
    expect((await checkFilter(input, requests)).sql).toBe(expected)
  })

  it('reports the columns used', async () => {
    expect((await checkFilter("status = 1 AND lower(route) = 'x' AND status < 3", requests)).columns).toEqual(['route', 'status'])
  })

  it('treats an empty or blank filter as no filter', async () => {
    expect(await checkFilter(undefined, requests)).toEqual({ sql: null, columns: [] })
    expect(await checkFilter('   ', requests)).toEqual({ sql: null, columns: [] })
  })
})

describe('filter: everything else is a 400 naming what is not allowed', () => {
  it.each([
    ['nope = 1', 'unknown column "nope" in dataset requests'],
    ['query_name = 1', 'unknown column "query_name"'], // a column of another dataset
    ['id = 1', 'unknown column "id"'], // the internal tie-break column is not exposed
    ['pg_sleep(1) IS NULL', 'function pg_sleep()'],
    ["set_config('role', 'postgres', true) = ''", 'function set_config()'],
    ['status = (SELECT 1)', 'sub-queries'],
    ['1=1; SELECT 1', 'more than one statement'],
    ['1=1 UNION SELECT 1', 'UNION'],
    ["'x'::regclass IS NULL", 'cast to regclass'],
    ['x.status = 1', 'qualified names'],
    ['status = $1', 'parameter placeholders'],
    ["route ~ 'a'", 'operator ~'],
    ['status = ANY(ARRAY[1])', 'ANY/ALL'],
    ['current_user IS NULL', 'session values'],
    ['count(*) > 1', 'function count()'],
    ['lower(route) OVER () IS NULL', 'window forms of lower()'],
    ['status =', 'not valid SQL'],
  ])('%s', async (input, fragment) => {
    expect(await rejection(input)).toContain(fragment)
  })

  it('refuses a filter longer than the limit and deep nesting', async () => {
    expect(await rejection(`status = 1 OR ${'status = 2 OR '.repeat(400)}status = 3`)).toContain('longer than')
    expect(await rejection(`${'NOT '.repeat(80)}rate_limited`)).toContain('nesting deeper')
  })
})

/** `replace()` nested `levels` deep around route, each level turning every '/' into ten. */
const nestedReplace = (levels: number) => {
  let expr = 'route'
  for (let i = 0; i < levels; i++) expr = `replace(${expr}, '/', '//////////')`
  return `${expr} LIKE '%x%'`
}

describe('filter: amplification budget', () => {
  it.each([9, 8])('refuses replace() nested %i levels, saying why', async (levels) => {
    // Refused at the third level already: 8 KiB → 8 MiB.
    expect(await rejection(nestedReplace(levels))).toBe(
      "Filter not allowed: replace() could make a value of up to 7.8 MiB from column values of up to 8 KiB (at most 1.0 MiB per value, so that one filter cannot take the database's memory)",
    )
  })

  it('refuses functions that lengthen values nested more than 3 deep, even when each grows little', async () => {
    // Doubling four times stays within 1 MiB (8 KiB → 128 KiB) but passes the nesting bound.
    const message = await rejection("replace(replace(replace(replace(route, '/', '//'), '/', '//'), '/', '//'), '/', '//') = ''")
    expect(message).toContain('replace() is nested 4 deep among functions that lengthen values')
    expect(message).toContain('at most 3 may be nested')
  })

  it('refuses a growth within the nesting bound that would pass 1 MiB per value', async () => {
    expect(await rejection(nestedReplace(3))).toContain('replace() could make a value of up to 7.8 MiB')
    expect(await rejection(`replace(route, '/', '${'x'.repeat(200)}') = 'a'`)).toContain('could make a value of up to 1.6 MiB')
    expect(await rejection(`concat(${Array(130).fill('route').join(', ')}) = 'a'`)).toContain('concat() could make a value')
  })

  it.each([
    "replace(route, '/api', '/v2/api') = '/v2/api/x'",
    "lower(route) = '/api/health'",
    "concat(method, ' ', route) = 'GET /api/health'",
    "concat(replace(lower(route), '/', '-'), method) LIKE '%get'",
    "replace(replace(route, '/', '//'), 'a', 'bb') LIKE '%//%'",
    "coalesce(replace(route, 'x', 'yy'), '') <> ''",
  ])('accepts an ordinary filter: %s', async (filter) => {
    expect((await checkFilter(filter, requests)).sql).toBeTruthy()
  })

  // Functions outside today's allow-list, so that adding one keeps the budget: the tree is checked directly.
  const budget = async (expression: string) => {
    await loadModule()
    const where = (parseSync(`SELECT 1 FROM t WHERE ${expression}`).stmts![0].stmt as unknown as { SelectStmt: { whereClause: unknown } }).SelectStmt
      .whereClause
    try {
      checkGrowthBudget(where)
      return 'accepted'
    } catch (error) {
      return (error as Error).message
    }
  }

  it.each([
    ["repeat(route, 3) = ''", 'accepted'],
    ["repeat(route, 1000) = ''", 'repeat() could make a value of up to 7.8 MiB'],
    ["repeat(route, status) = ''", 'repeat() with a count that is not a number'],
    ["lpad(route, 20) = ''", 'accepted'],
    ["rpad(route, 1000000, 'x') = ''", 'rpad() could make a value'],
    ["lpad(route, status) = ''", 'lpad() with a length that is not a number'],
    ["route || 'x' || route = ''", 'accepted'],
    ["((((route || route) || route) || route) || route) = ''", 'the || operator is nested 4 deep'],
    ["format('%s-%s', route, method) = ''", 'accepted'],
    ["format(route, method) = ''", 'format() with a format that is not written'],
    ["regexp_replace(route, 'a', 'b') = ''", 'accepted'],
    [`regexp_replace(route, '', '${'b'.repeat(200)}') = ''`, 'regexp_replace() could make a value'],
    ["regexp_replace(route, 'a', method) = ''", 'regexp_replace() could make a value'],
    ["translate(route, 'a', 'b') = ''", 'accepted'],
    ["string_agg(route, ',') = ''", 'string_agg() (its result has no bound)'],
  ])('%s', async (expression, expected) => {
    expect(await budget(expression)).toContain(expected)
  })
})

describe('filter: injection corpus', () => {
  // Payloads that parse as plain, allowed expressions: comments and escapes vanish in the
  // regenerated SQL, and quotes stay inside literals.
  const harmless = new Map([
    ['status = 200 -- AND status = 500', 'status = 200'],
    ['status = 200 /* comment */ OR 1=1', 'status = 200 OR 1 = 1'],
    ['/**/status/**/=/**/200', 'status = 200'],
    ['U&"\\0073tatus" = 200', 'status = 200'],
    ["U&'\\0027; DROP TABLE request_log; --' = route", "'''; DROP TABLE request_log; --' = route"],
    ["route = 'x''; DROP TABLE request_log; --'", "route = 'x''; DROP TABLE request_log; --'"],
  ])

  it('holds at least 50 payloads', () => {
    expect(INJECTION_CORPUS.length).toBeGreaterThanOrEqual(50)
  })

  it.each(INJECTION_CORPUS.map((p) => [p]))('%j', async (payload) => {
    if (harmless.has(payload)) expect((await checkFilter(payload, requests)).sql).toBe(harmless.get(payload))
    else await rejection(payload)
  })
})

describe('datasets', () => {
  const tables = Object.values(DATASET_STORAGE).flatMap((storage) => [storage.rows, storage.rollup])
  const pgTypes: Record<ColumnType, string[]> = {
    timestamp: ['PgTimestamp'],
    text: ['PgText'],
    integer: ['PgInteger'],
    bigint: ['PgBigInt53', 'PgBigInt64'],
    number: ['PgDoublePrecision'],
    boolean: ['PgBoolean'],
    inet: ['PgInet'],
    json: ['PgJsonb'],
  }

  it.each(DATASET_IDS.map((id) => [id]))('%s: every column exists in its table with a matching type', (id) => {
    const d = DATASETS[id]
    const table = tables.find((t) => (t as unknown as Record<symbol, string>)[Symbol.for('drizzle:Name')] === d.table)
    expect(table, d.table).toBeDefined()
    const columns = Object.values(getTableColumns(table as never)) as Array<{ name: string; columnType: string }>
    for (const c of d.columns) {
      const col = columns.find((x) => x.name === c.name)
      expect(col, `${d.table}.${c.name}`).toBeDefined()
      expect(pgTypes[c.type], `${d.table}.${c.name}`).toContain(col!.columnType)
    }
    expect(d.columns.map((c) => c.name)).toContain(d.timeColumn)
  })

  it.each(DATASET_IDS.map((id) => [id]))('%s: quick filters pass the checker', async (id) => {
    for (const q of DATASETS[id].quickFilters) expect((await checkFilter(q.filter, DATASETS[id])).sql).toBeTruthy()
  })

  it.each(DATASET_IDS.map((id) => [id]))('%s: panels reference its own columns', (id) => {
    const names = DATASETS[id].columns.map((c) => c.name)
    for (const p of DATASETS[id].panels) {
      if (p.kind === 'breakdown' || p.kind === 'top') expect(names).toContain(p.column)
      if (p.kind === 'latency') expect(names).toEqual(expect.arrayContaining([p.column, p.errorStatusColumn]))
      if (p.kind === 'timeseries') for (const s of p.series) if (s.aggregate === 'sum') expect(names).toContain(s.column)
    }
  })

  it('gateway columns name their Logpush field', () => {
    for (const id of ['dns', 'http', 'network', 'sessions'] as const)
      for (const c of DATASETS[id].columns) if (c.name !== 'demo') expect(c.source, `${id}.${c.name}`).toMatch(/^[A-Z][A-Za-z]+$/)
  })
})

describe('filter: checked once, remembered per dataset', () => {
  it('answers a repeated filter as the first time, per dataset, and keeps refusing a bad one', async () => {
    const first = await checkFilter("status >= 500 AND route LIKE '/api/%'", DATASETS.requests)
    first.columns.push('tampered') // a caller changing its copy changes nothing remembered
    expect(await checkFilter("status >= 500 AND route LIKE '/api/%'", DATASETS.requests)).toEqual({
      sql: "status >= 500 AND route LIKE '/api/%'",
      columns: ['route', 'status'],
    })
    // The same text on another dataset is checked against that dataset's columns.
    await expect(checkFilter("status >= 500 AND route LIKE '/api/%'", DATASETS.dns)).rejects.toThrow(AppError)
    for (let i = 0; i < 2; i++) await expect(checkFilter('status = 1; DROP TABLE request_log', DATASETS.requests)).rejects.toThrow(AppError)
  })
})
