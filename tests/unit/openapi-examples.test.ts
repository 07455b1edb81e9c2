import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { ERROR_STATUS } from '@/lib/errors'
import { errorCodesOf } from '@/lib/http/operation'
import { buildOpenApiDocument } from '@/lib/openapi/document'
import { operations } from '@/lib/operations'

// Every operation of the published document shows real examples (recorded answers, request bodies,
// one example per documented error), each valid against the schema it illustrates; no example is a
// generator's placeholder. tests/integration/openapi-examples.test.ts keeps the recorded answers fresh.

type Json = Record<string, unknown>
interface Example {
  summary?: string
  value: unknown
}
interface Media {
  schema: Json
  examples?: Record<string, Example>
}
interface Operation {
  operationId: string
  parameters?: { name: string; in: string; schema: Json; examples?: Record<string, Example> }[]
  requestBody?: { content: Record<string, Media> }
  responses: Record<string, { headers?: Record<string, Json>; content?: Record<string, Media> }>
}

const doc = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, Operation>>; components: Json }
const ajv = new Ajv2020({ strict: false, allErrors: true })
addFormats(ajv)
ajv.addSchema({ $id: 'doc', components: doc.components })

const resolveRefs = (schema: Json): Json => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"doc#/components/'))
function errorsOf(schema: Json, value: unknown): string[] {
  const validate = ajv.compile(resolveRefs(schema))
  return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`)
}

const entries = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ label: `${method.toUpperCase()} ${path}`, path, method, op })),
)
const json = (m?: Record<string, Media>) => m?.['application/json']

describe('OpenAPI examples', () => {
  it('covers every operation, the tool server included', () => {
    expect(entries.map((e) => e.op.operationId)).toEqual([...operations.map((op) => op.operationId), 'callMcp'])
  })

  it.each(entries)('$label: every response and request body has examples', ({ op }) => {
    const missing: string[] = []
    for (const [status, response] of Object.entries(op.responses)) {
      const media = json(response.content)
      const headerExample = Object.values(response.headers ?? {}).some((h) => 'example' in h)
      if (media && Object.keys(media.examples ?? {}).length === 0) missing.push(status)
      if (!media && status !== '202' && !headerExample) missing.push(`${status} (no body, no header example)`)
    }
    if (op.requestBody && Object.keys(json(op.requestBody.content)?.examples ?? {}).length === 0) missing.push('request body')
    expect(missing).toEqual([])
  })

  it.each(operations)('$operationId: one example per documented error code', (op) => {
    const responses = doc.paths[op.path][op.method.toLowerCase()].responses
    for (const code of errorCodesOf(op)) {
      const examples = json(responses[String(ERROR_STATUS[code])]?.content)?.examples ?? {}
      expect(Object.keys(examples).length, `${code}`).toBeGreaterThan(0)
    }
  })

  it.each(entries)('$label: every example is valid against its schema', ({ op }) => {
    const invalid: string[] = []
    const check = (where: string, schema: Json, examples: Record<string, Example> = {}) => {
      for (const [name, example] of Object.entries(examples)) for (const error of errorsOf(schema, example.value)) invalid.push(`${where} ${name}: ${error}`)
    }
    for (const [status, response] of Object.entries(op.responses)) {
      const media = json(response.content)
      if (media) check(status, media.schema, media.examples)
      for (const [name, header] of Object.entries(response.headers ?? {}))
        if ('example' in header) check(`${status} header ${name}`, header.schema as Json, { header: { value: header.example } })
    }
    const body = json(op.requestBody?.content)
    if (body) check('request', body.schema, body.examples)
    for (const p of op.parameters ?? []) check(`parameter ${p.name}`, p.schema, p.examples)
    expect(invalid).toEqual([])
  })

  it('shows no placeholder a generator would invent', () => {
    const values: unknown[] = []
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(collect)
      if (typeof node !== 'object' || node === null) return
      for (const [key, value] of Object.entries(node)) {
        if (key === 'example') values.push(value)
        else if (key === 'examples') values.push(...(Array.isArray(value) ? value : Object.values(value as Json).map((e) => (e as Example).value)))
        else collect(value)
      }
    }
    collect(doc)
    expect(values.length).toBeGreaterThan(150)
    const leaves: unknown[] = []
    const flatten = (v: unknown): void => (typeof v === 'object' && v !== null ? Object.values(v).forEach(flatten) : void leaves.push(v))
    values.forEach(flatten)
    const placeholders = leaves.filter((v) => v === 'string' || v === Number.MAX_SAFE_INTEGER || v === Number.MIN_SAFE_INTEGER)
    expect(placeholders).toEqual([])
    expect(JSON.stringify(doc)).not.toMatch(/9007199254740991/)
  })
})
