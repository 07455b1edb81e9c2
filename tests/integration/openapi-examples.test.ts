import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { EXAMPLES_FILE, recordExamples } from '../../scripts/openapi-examples/record'
import type { RecordedExamples } from '@/lib/openapi/examples'

// The document's examples are answers recorded from the real handlers (scripts/openapi-examples).
// Recording them again must give the committed file, so a change to an operation, its mapping or
// its examples cannot leave the reference showing answers the API no longer gives. Values an
// example declares as varying (clock, random ids) are compared by type only.

/** Replaces the value at a JSON pointer with its type. */
function maskPointer(body: unknown, pointer: string) {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replaceAll('~1', '/').replaceAll('~0', '~'))
  let node = body as Record<string, unknown> | undefined
  for (const key of keys.slice(0, -1)) node = node?.[key] as Record<string, unknown> | undefined
  const last = keys.at(-1)!
  if (node && last in node) node[last] = `<${Array.isArray(node[last]) ? 'array' : typeof node[last]}>`
}

describe('OpenAPI examples', () => {
  it('lib/openapi/examples.json is what the handlers answer today (else run `npm run openapi:examples`)', async () => {
    const fresh = await recordExamples()
    const committed = JSON.parse(readFileSync(EXAMPLES_FILE, 'utf8')) as RecordedExamples
    const { operations } = await import('@/lib/operations')
    for (const op of operations)
      for (const example of op.examples ?? [])
        for (const pointer of example.varies ?? [])
          for (const recorded of [fresh, committed]) maskPointer(recorded.operations[op.operationId]?.[example.name]?.body, pointer)
    expect(fresh).toEqual(committed)
  })
})
