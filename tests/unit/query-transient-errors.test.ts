import { describe, expect, it } from 'vitest'
import type { Database } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { readOnly } from '@/lib/query/service'

// A read-only query meeting a deadlock, serialization failure or lock timeout (partition DDL
// beside it) is run once more; a second failure is a 503 with Retry-After, never a 500.

const pgError = (code: string, message: string) => Object.assign(new Error('Failed query'), { cause: Object.assign(new Error(message), { code }) })

function flakyDatabase(failures: Error[]): { database: Database; calls: () => number } {
  let calls = 0
  const database = {
    driver: 'node-postgres',
    readOnly: async <T>(_timeoutMs: number, fn: (s: { execute: () => Promise<never[]> }) => Promise<T>) => {
      const failure = failures[calls++]
      if (failure) throw failure
      return fn({ execute: async () => [] })
    },
  } as unknown as Database
  return { database, calls: () => calls }
}

describe('readOnly and transient database conflicts', () => {
  it.each([
    ['40P01', 'deadlock detected'],
    ['40001', 'could not serialize access'],
    ['55P03', 'canceling statement due to lock timeout'],
  ])('%s once: the query is run again and answers', async (code, message) => {
    const { database, calls } = flakyDatabase([pgError(code, message)])
    expect(await readOnly({ database }, async () => 'rows')).toBe('rows')
    expect(calls()).toBe(2)
  })

  it('twice: 503 unavailable with Retry-After', async () => {
    const { database, calls } = flakyDatabase([pgError('40P01', 'deadlock detected'), pgError('40P01', 'deadlock detected')])
    const error = await readOnly({ database }, async () => 'rows').catch((e: unknown) => e)
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: 'unavailable', status: 503, details: { retryAfterSeconds: 1 } })
    expect(calls()).toBe(2)
  })

  it('other errors are not retried', async () => {
    const { database, calls } = flakyDatabase([pgError('42601', 'syntax error')])
    await expect(readOnly({ database }, async () => 'rows')).rejects.toMatchObject({ code: 'invalid_input' })
    expect(calls()).toBe(1)
  })

  it('a pool whose connections all stay busy is a 503, not a 500', async () => {
    const { database, calls } = flakyDatabase([new Error('timeout exceeded when trying to connect')])
    await expect(readOnly({ database }, async () => 'rows')).rejects.toMatchObject({ code: 'unavailable', status: 503, details: { retryAfterSeconds: 1 } })
    expect(calls()).toBe(1)
  })

  it.each([
    ['54000', 'out of memory', 'invalid_input', 400],
    ['54001', 'stack depth limit exceeded', 'invalid_input', 400],
    ['53400', 'temporary file size exceeds temp_file_limit (262144kB)', 'invalid_input', 400],
    ['53200', 'out of memory', 'unavailable', 503],
    ['53100', 'could not extend file: No space left on device', 'unavailable', 503],
    ['53300', 'too many connections for role', 'unavailable', 503],
  ])('resource limit %s (%s) answers %s, never a 500, with a sentence', async (code, message, expected, status) => {
    const { database, calls } = flakyDatabase([pgError(code, message)])
    const error = (await readOnly({ database }, async () => 'rows').catch((e: unknown) => e)) as AppError
    expect(error).toBeInstanceOf(AppError)
    expect(error).toMatchObject({ code: expected, status })
    expect(error.message).toContain(`${message}; SQLSTATE ${code}`)
    expect(error.message).toMatch(/Narrow the date range|Retry later/)
    if (status === 503) expect(error.details).toMatchObject({ retryAfterSeconds: 30 })
    expect(calls()).toBe(1)
  })
})
