import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configKeys } from '@/lib/config'

// A variable the code reads but the docs do not mention is a variable nobody can set.
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8')

describe('configuration documentation', () => {
  it.each(configKeys)('%s is in .env.example and the README', (key) => {
    expect(read('.env.example')).toMatch(new RegExp(`^# ${key}=`, 'm'))
    expect(read('README.md')).toContain(`\`${key}\``)
  })
})

describe('configuration parsing', () => {
  it('runs on defaults with nothing set', async () => {
    const { loadConfig } = await import('@/lib/config')
    const c = loadConfig({})
    expect(c.RATE_LIMIT_MAX).toBe(500)
    expect(c.RATE_LIMIT_WINDOW_S).toBe(30)
    expect(c.INTERNAL_API_KEYS).toEqual([])
  })

  it('names the variable that is wrong', async () => {
    const { loadConfig } = await import('@/lib/config')
    expect(() => loadConfig({ RATE_LIMIT_MAX: 'lots' })).toThrow(/RATE_LIMIT_MAX/)
    expect(() => loadConfig({ TRUSTED_IP_HEADER: 'x-client-ip' })).toThrow(/TRUSTED_IP_HEADER/)
    expect(() => loadConfig({ PUBLIC_BASE_URL: 'not a url' })).toThrow(/PUBLIC_BASE_URL/)
  })

  it('splits key lists so a key can be rotated', async () => {
    const { loadConfig } = await import('@/lib/config')
    expect(loadConfig({ INTERNAL_API_KEYS: ' new , old ,' }).INTERNAL_API_KEYS).toEqual(['new', 'old'])
  })
})
