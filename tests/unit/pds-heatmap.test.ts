import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { collectBlobSizes } from '@/lib/pds/blobs'
import { mapLimit } from '@/lib/pds/concurrency'
import { countPosts, postDay, reachedBeforeYear, toHeatmap, type PostRecord } from '@/lib/pds/heatmap'
import { tidFromTimeMs } from '@/lib/pds/tid'

const DID = 'did:plc:ewvi7nxzyoun6zhxrhs64oiz'
const post = (createdAt: unknown, writtenMs = Date.parse(String(createdAt))): PostRecord => ({
  uri: `at://${DID}/app.bsky.feed.post/${Number.isNaN(writtenMs) ? 'self' : tidFromTimeMs(writtenMs)}`,
  value: { $type: 'app.bsky.feed.post', text: 'hi', createdAt },
})

describe('postDay', () => {
  const now = Date.UTC(2025, 5, 15, 12)

  it('uses the UTC day of createdAt, whatever its offset', () => {
    expect(postDay(post('2025-03-01T23:30:00-02:00'), now)).toBe('2025-03-02')
    expect(postDay(post('2025-03-01T00:30:00+01:00'), now)).toBe('2025-02-28')
  })

  it('excludes posts dated after now', () => {
    expect(postDay(post('2025-06-15T12:00:01Z', now - 1000), now)).toBeNull()
    expect(postDay(post('2031-01-01T00:00:00Z', now - 1000), now)).toBeNull()
    expect(postDay(post('2025-06-15T12:00:00Z'), now)).toBe('2025-06-15')
  })

  it('falls back to the record key time when createdAt is unusable', () => {
    expect(postDay(post('not a date', Date.UTC(2025, 1, 3, 4)), now)).toBe('2025-02-03')
    expect(postDay(post(42, Date.UTC(2025, 1, 4)), now)).toBe('2025-02-04')
    expect(postDay({ uri: `at://${DID}/app.bsky.feed.post/self`, value: { text: 'no date' } }, now)).toBeNull()
  })
})

describe('countPosts', () => {
  it('counts per day, only inside the year, without future posts', () => {
    const now = Date.UTC(2025, 11, 31, 12)
    const counts = new Map<string, number>()
    countPosts(
      counts,
      [
        post('2026-01-01T00:00:00.000Z', now - 60_000), // future-dated
        post('2025-12-31T11:59:59.999Z'),
        post('2025-12-31T10:00:00Z'),
        post('2025-01-01T00:00:00.000Z'),
        post('2024-12-31T23:59:59.999Z'), // previous year
        post('2025-07-04T12:00:00Z'),
      ],
      2025,
      now,
    )
    countPosts(counts, [post('2025-07-04T20:00:00Z')], 2025, now)
    expect(toHeatmap(counts)).toEqual({ '2025-01-01': 1, '2025-07-04': 2, '2025-12-31': 2 })
    expect(Object.keys(toHeatmap(counts))).toEqual(['2025-01-01', '2025-07-04', '2025-12-31'])
  })

  it('counts the last day of a year in that year only', () => {
    const now = Date.UTC(2026, 0, 2)
    const records = [post('2025-12-31T23:59:59Z'), post('2026-01-01T00:00:00Z')]
    const y2025 = new Map<string, number>()
    const y2026 = new Map<string, number>()
    countPosts(y2025, records, 2025, now)
    countPosts(y2026, records, 2026, now)
    expect(toHeatmap(y2025)).toEqual({ '2025-12-31': 1 })
    expect(toHeatmap(y2026)).toEqual({ '2026-01-01': 1 })
  })
})

describe('reachedBeforeYear', () => {
  it('stops once the last record was written more than a day before the year', () => {
    expect(reachedBeforeYear([post('2025-03-01T00:00:00Z'), post('2024-12-30T00:00:00Z')], 2025)).toBe(true)
    // a day's margin for clocks
    expect(reachedBeforeYear([post('2024-12-31T12:00:00Z')], 2025)).toBe(false)
    expect(reachedBeforeYear([post('2025-01-01T00:00:00Z')], 2025)).toBe(false)
  })

  it('never stops on record keys that are not TIDs, or on an empty page', () => {
    expect(reachedBeforeYear([{ uri: `at://${DID}/app.bsky.feed.post/custom-key`, value: {} }], 2025)).toBe(false)
    expect(reachedBeforeYear([], 2025)).toBe(false)
  })
})

describe('collectBlobSizes', () => {
  it('finds sized blob references at any depth and ignores legacy ones', () => {
    const sizes = new Map<string, number>()
    collectBlobSizes(
      {
        $type: 'app.bsky.feed.post',
        embed: {
          $type: 'app.bsky.embed.recordWithMedia',
          media: {
            $type: 'app.bsky.embed.images',
            images: [
              { alt: '', image: { $type: 'blob', ref: { $link: 'bafkreia' }, mimeType: 'image/jpeg', size: 1000 } },
              { alt: '', image: { $type: 'blob', ref: { $link: 'bafkreib' }, mimeType: 'image/png', size: 2500 } },
            ],
          },
        },
        avatar: { cid: 'bafkreilegacy', mimeType: 'image/jpeg' },
        bogus: { $type: 'blob', ref: { $link: 'bafkreic' }, size: -1 },
      },
      sizes,
    )
    expect(Object.fromEntries(sizes)).toEqual({ bafkreia: 1000, bafkreib: 2500 })
  })
})

describe('mapLimit', () => {
  it('keeps order and never exceeds the limit', async () => {
    let inFlight = 0
    let peak = 0
    const out = await mapLimit([5, 1, 4, 2, 3, 0, 6], 3, async (n) => {
      inFlight++
      peak = Math.max(peak, inFlight)
      await sleep(n)
      inFlight--
      return n * 10
    })
    expect(out).toEqual([50, 10, 40, 20, 30, 0, 60])
    expect(peak).toBe(3)
  })

  it('starts no new item after a failure', async () => {
    const started: number[] = []
    await expect(
      mapLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
        started.push(n)
        await sleep(1)
        if (n === 2) throw new Error('boom')
        return n
      }),
    ).rejects.toThrow('boom')
    await sleep(10)
    expect(started.length).toBeLessThanOrEqual(3)
  })
})
