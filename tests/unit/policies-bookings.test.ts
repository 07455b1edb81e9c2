import { describe, expect, it } from 'vitest'
import { AppError } from '@/lib/errors'
import { bookingsUrl } from '@/lib/bookings/service'
import { BookingsParams } from '@/lib/bookings/schemas'
import { getPolicy, listPolicies } from '@/lib/policies/service'
import { PolicyList, PolicyParams } from '@/lib/policies/schemas'

describe('policies', () => {
  it('lists every policy from the data file, valid and ordered by slug', async () => {
    const list = await listPolicies()
    expect(PolicyList.parse(list)).toEqual(list)
    expect(list.count).toBe(list.policies.length)
    expect(list.count).toBeGreaterThanOrEqual(5)
    const slugs = list.policies.map((p) => p.slug)
    expect(slugs).toEqual([...slugs].sort())
  })

  it('finds one by slug and answers not_found otherwise', async () => {
    expect((await getPolicy('privacy-policy')).title).toBe('Privacy Policy')
    await expect(getPolicy('no-such-policy')).rejects.toMatchObject({ code: 'not_found' })
    expect(PolicyParams.parse({ slug: 'Privacy-Policy' }).slug).toBe('privacy-policy')
    expect(PolicyParams.safeParse({ slug: '../x' }).success).toBe(false)
  })

  it('returns a copy callers cannot use to change the data', async () => {
    const first = await listPolicies()
    first.policies.pop()
    expect((await listPolicies()).policies.length).toBe(first.count)
  })
})

describe('bookings', () => {
  const template = 'https://outlook.office365.com/owa/calendar/{user}/bookings/'

  it('fills the template', () => {
    expect(bookingsUrl('jane.doe', template, [])).toBe('https://outlook.office365.com/owa/calendar/jane.doe/bookings/')
    expect(bookingsUrl('Sales_Team', 'https://b.example/book/{user}@contoso.com/', [])).toBe('https://b.example/book/Sales_Team@contoso.com/')
  })

  it('answers not_found for users outside a configured list (compared case-insensitively)', () => {
    expect(bookingsUrl('Jane', template, ['jane', 'bob'])).toContain('/Jane/')
    expect(() => bookingsUrl('eve', template, ['jane'])).toThrow(AppError)
  })

  it.each(['jane', 'jane.doe', 'a', 'a-b_c.d', 'x'.repeat(64)])('accepts alias %j', (user) => {
    expect(BookingsParams.safeParse({ user }).success).toBe(true)
  })

  it.each(['..', '.jane', 'jane.', 'ja..ne', 'jane doe', 'jane@contoso.com', 'a/b', '%2e%2e', 'x'.repeat(65), ''])('refuses alias %j', (user) => {
    expect(BookingsParams.safeParse({ user }).success).toBe(false)
  })
})
