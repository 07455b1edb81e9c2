import { v4 as uuidv4, v7 as uuidv7 } from 'uuid'
import type { z } from 'zod'
import type { GenerateGuidQuery, GuidList } from '@/lib/generate/schemas'

type Format = GuidList['format']

export function formatGuid(guid: string, format: Format, uppercase: boolean): string {
  const cased = uppercase ? guid.toUpperCase() : guid.toLowerCase()
  switch (format) {
    case 'N':
      return cased.replaceAll('-', '')
    case 'B':
      return `{${cased}}`
    case 'P':
      return `(${cased})`
    default:
      return cased
  }
}

export function generateGuids(query: z.output<typeof GenerateGuidQuery>): GuidList {
  const count = query.numberOfGuids ?? query.count
  const version = query.version === '7' ? 7 : 4
  const make = version === 7 ? uuidv7 : uuidv4
  const guids = Array.from({ length: count }, () => formatGuid(make(), query.format, query.uppercase))
  return { version, format: query.format, count, guids }
}
