import { beforeAll, describe, expect, it } from 'vitest'
import { DATASETS } from '@/lib/datasets/catalog'
import { checkFilterSync, loadFilterParser } from '@/lib/query/filter'
import { completionsAt, type ValueHints } from '@/lib/view/filter-completion'

// Completion in the filter box: columns for a word, values after `column =`; what taking an
// option writes is a literal the filter checker accepts.

const columns = DATASETS.requests.columns.map((c) => ({ name: c.name, type: c.type }))
const values: ValueHints = {
  route: [
    { value: '/api/health', count: 900 },
    { value: "/api/o'brien", count: 12 },
    { value: '/api/ipcheck', count: 40 },
  ],
  status: [
    { value: 200, count: 1000 },
    { value: 404, count: 30 },
    { value: 503, count: 3 },
  ],
  country: [
    { value: null, count: 5 },
    { value: 'DE', count: 7 },
  ],
}

/** The text after taking the first option with the caret at the end of `typed`, and the rest after it. */
function take(typed: string, rest = '') {
  const text = typed + rest
  const c = completionsAt(text, typed.length, columns, values)!
  return { completion: c, text: text.slice(0, c.start) + c.options[0].insert + text.slice(c.end) }
}

beforeAll(() => loadFilterParser())

describe('filter completion', () => {
  it('completes a column name from the word at the caret', () => {
    const c = completionsAt('dur', 3, columns, values)!
    expect(c.of).toBe('columns')
    expect(c.options.map((o) => o.label)).toEqual(['duration_ms'])
  })

  it("offers a text column's values that contain what is typed inside the quote, and closes it", () => {
    const { completion, text } = take("route = 'ip")
    expect(completion.of).toBe('route')
    expect(completion.options.map((o) => o.label)).toEqual(['/api/ipcheck'])
    expect(text).toBe("route = '/api/ipcheck'")
    expect(checkFilterSync(text, DATASETS.requests).sql).toBe("route = '/api/ipcheck'")
  })

  it('quotes a value with a quote in it, replaces what follows the caret up to the closing quote, and works after !=', () => {
    expect(take(`"route" != 'o`, "'").text).toBe(`"route" != '/api/o''brien'`)
    expect(take("route = '/api/h", "ea' AND status = 200").text).toBe("route = '/api/health' AND status = 200")
    expect(take('route <> ').text).toBe("route <> '/api/health'")
  })

  it('writes numbers bare, offers every value after the operator, and leaves out NULL', () => {
    expect(completionsAt('status = ', 9, columns, values)!.options.map((o) => o.insert)).toEqual(['200', '404', '503'])
    expect(take('status = 5').text).toBe('status = 503')
    expect(completionsAt("country = '", 11, columns, values)!.options.map((o) => o.label)).toEqual(['DE'])
  })

  it('falls back to nothing where no values are known or nothing matches', () => {
    expect(completionsAt("method = 'G", 11, columns, values)).toBeNull()
    expect(completionsAt("route = 'zzz", 12, columns, values)).toBeNull()
    expect(completionsAt("route = '/api/health' ", 22, columns, values)).toBeNull()
  })
})
