import { createElement } from 'react'
import { renderToStaticMarkup } from 'react-dom/server'
import { describe, expect, it } from 'vitest'
import { AlertChecksChart } from '@/components/query/alert-checks-chart'
import { Condition } from '@/lib/saved-views/condition'
import type { Evaluation } from '@/lib/saved-views/views'

// The recent checks' chart on the Saved page: one point per measured check, a marker where the
// alert fired (the first firing check after one that was not) and where it resolved, and a label
// that says as much to a screen reader.

const condition = Condition.parse({ metric: 'count', op: 'above', threshold: 10, windowMinutes: 5 })
const check = (minute: number, value: number | null, state: string): Evaluation => ({
  id: minute,
  viewId: 'v',
  at: new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString(),
  windowStart: new Date(Date.UTC(2026, 10, 20, 10, minute - 5)).toISOString(),
  windowEnd: new Date(Date.UTC(2026, 10, 20, 10, minute)).toISOString(),
  value,
  threshold: 10,
  held: 1,
  consecutiveWindows: 1,
  state,
  delivery: null,
  outcomes: null,
  error: null,
})
const render = (evaluations: Evaluation[]) => renderToStaticMarkup(createElement(AlertChecksChart, { name: 'Busy', condition, evaluations, tz: 'UTC' }))
const count = (html: string, testId: string) => html.split(`data-testid="${testId}"`).length - 1

describe('recent checks chart', () => {
  it('marks each firing and each resolution, and says so in its label', () => {
    // Newest first, as listEvaluations gives them.
    const html = render(
      [
        check(0, 2, 'ok'),
        check(5, 12, 'firing'),
        check(10, 15, 'firing'),
        check(15, 3, 'resolved'),
        check(20, 11, 'firing'),
        check(25, null, 'error'),
      ].reverse(),
    )
    expect(count(html, 'marker-fired')).toBe(2)
    expect(count(html, 'marker-resolved')).toBe(1)
    expect(html).toContain(
      'aria-label="Values of the last 5 checks of Busy against the threshold 10 rows, from 2026-11-20 10:00:00 UTC to 2026-11-20 10:20:00 UTC: 2 firing, 1 resolved."',
    )
    expect(html.match(/<polyline[^>]*points="([^"]+)"/)![1].split(' ')).toHaveLength(5)
  })

  it('draws nothing for fewer than two measured checks', () => {
    expect(render([check(0, 2, 'ok'), check(5, null, 'error')])).toBe('')
  })
})
