import { sql } from 'drizzle-orm'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createDatabase, type Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { HISTORY_SIZE, listHistory, listSaved, ownerOf, recordRun, saveView } from '@/lib/saved-views/views'
import { readOnly } from '@/lib/query/service'

// Saved views and history on PGlite in memory: the owner key, the history's length, and the wall
// between these tables and the role user filters run under.

let database: Database

beforeAll(async () => {
  database = await createDatabase({ PGLITE_DIR: 'memory://' })
  await database.migrate()
}, 60_000)

afterAll(async () => {
  await database?.close()
})

describe('owners', () => {
  it('keys views by the access email (any case), the subject without one, or the local operator', () => {
    const access = { kind: 'access' as const, subject: 'sub-1', issuer: 'https://team.example.test', expiresAt: '' }
    expect(ownerOf({ ...access, email: 'Ana@Example.com' })).toBe('email:ana@example.com')
    expect(ownerOf({ ...access, email: null })).toBe('subject:https://team.example.test sub-1')
    expect(ownerOf({ kind: 'local', label: 'Local operator', address: '127.0.0.1' })).toBe('local')
  })
})

describe('history', () => {
  it(`keeps each owner's newest ${HISTORY_SIZE} runs`, async () => {
    for (let i = 1; i <= HISTORY_SIZE + 5; i++)
      await recordRun('email:ana@example.com', { page: 'rows', view: `dataset=dns&range=24h&offset=${i}`, rowCount: i, elapsedMs: 1.5 }, database.db)
    await recordRun('local', { page: 'dashboard', view: 'dataset=http&range=7d', error: 'boom' }, database.db)
    const anas = await listHistory('email:ana@example.com', database.db)
    expect(anas).toHaveLength(HISTORY_SIZE)
    expect(anas[0]).toMatchObject({ view: `dataset=dns&range=24h&offset=${HISTORY_SIZE + 5}`, rowCount: HISTORY_SIZE + 5, elapsedMs: 1.5, error: null })
    expect(anas.at(-1)!.rowCount).toBe(6)
    expect(await listHistory('local', database.db)).toEqual([expect.objectContaining({ page: 'dashboard', rowCount: null, error: 'boom' })])
  })
})

describe('saved views', () => {
  it('replaces a view saved again under the same name', async () => {
    const first = await saveView('local', { name: 'mine', page: 'rows', view: 'dataset=dns' }, database.db)
    const again = await saveView('local', { name: 'mine', page: 'dashboard', view: 'dataset=http&range=7d' }, database.db)
    expect(again.id).toBe(first.id)
    expect(await listSaved('local', database.db)).toEqual([expect.objectContaining({ id: first.id, page: 'dashboard', view: 'dataset=http&range=7d' })])
  })
})

describe('the query role', () => {
  it.each(['saved_query', 'query_history'])('cannot read %s', async (table) => {
    const error = await readOnly({ database }, (session) => session.execute(sql`SELECT * FROM ${sql.identifier(table)}`)).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect((error as AppError).code).toBe('forbidden')
  })
})
