import type { CreateDocumentOptions } from 'zod-openapi'

// Corrections applied to every schema the document renders, so no single schema has to remember them.

type JsonSchema = Record<string, unknown>

/**
 * zod-openapi's per-schema hook. An unbounded `z.int()` renders as ±(2^53 − 1): that is JavaScript's
 * exact-integer range, not a limit of this API, so those bounds are dropped (real `.min()`/`.max()` stay).
 */
export const overrideSchema: NonNullable<CreateDocumentOptions['override']> = ({ jsonSchema }) => {
  const schema = jsonSchema as JsonSchema
  if (schema.type !== 'integer') return
  if (schema.minimum === Number.MIN_SAFE_INTEGER) delete schema.minimum
  if (schema.maximum === Number.MAX_SAFE_INTEGER) delete schema.maximum
}

const isObject = (v: unknown): v is JsonSchema => typeof v === 'object' && v !== null && !Array.isArray(v)

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs'] as const
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const
const SUBSCHEMAS = ['items', 'additionalProperties', 'not', 'propertyNames', 'contentSchema'] as const

/** Calls `visit` on `schema` and then on every schema nested in it. */
function walkSchema(schema: unknown, visit: (s: JsonSchema) => void) {
  if (!isObject(schema)) return
  visit(schema)
  for (const key of SUBSCHEMA_MAPS) if (isObject(schema[key])) Object.values(schema[key]).forEach((s) => walkSchema(s, visit))
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(schema[key])) (schema[key] as unknown[]).forEach((s) => walkSchema(s, visit))
  for (const key of SUBSCHEMAS) walkSchema(schema[key], visit)
}

/** Every schema of an OpenAPI 3.1 document: components, parameters, headers, bodies and responses. */
export function forEachSchema(doc: JsonSchema, visit: (s: JsonSchema) => void) {
  const components = isObject(doc.components) ? doc.components : {}
  for (const s of Object.values(isObject(components.schemas) ? components.schemas : {})) walkSchema(s, visit)
  const inContent = (content: unknown) => {
    if (isObject(content)) for (const media of Object.values(content)) if (isObject(media)) walkSchema(media.schema, visit)
  }
  const inHeaders = (headers: unknown) => {
    if (isObject(headers)) for (const h of Object.values(headers)) if (isObject(h)) walkSchema(h.schema, visit)
  }
  inHeaders(components.headers)
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    if (!isObject(item)) continue
    for (const op of Object.values(item)) {
      if (!isObject(op)) continue
      for (const p of Array.isArray(op.parameters) ? op.parameters : []) if (isObject(p)) walkSchema(p.schema, visit)
      if (isObject(op.requestBody)) inContent(op.requestBody.content)
      for (const r of Object.values(isObject(op.responses) ? op.responses : {})) {
        if (!isObject(r)) continue
        inContent(r.content)
        inHeaders(r.headers)
      }
    }
  }
}

const ANY_JSON = ['object', 'array', 'string', 'number', 'boolean', 'null']
const CONSTRAINTS = ['type', '$ref', 'anyOf', 'oneOf', 'allOf', 'not', 'const', 'enum']

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v)

/** The JSON types a schema admits, or null when that cannot be told from the schema alone. */
function typesOf(schema: JsonSchema, resolve: (ref: string) => JsonSchema | undefined, depth = 0): string[] | null {
  if (depth > 8) return null
  if (typeof schema.type === 'string') return [schema.type]
  if (Array.isArray(schema.type)) return schema.type as string[]
  if (typeof schema.$ref === 'string') {
    const target = resolve(schema.$ref)
    return target ? typesOf(target, resolve, depth + 1) : null
  }
  if ('const' in schema) return [jsonType(schema.const)]
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))]
  const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined
  if (!Array.isArray(branches)) return null
  const all = new Set<string>()
  for (const b of branches) {
    const t = isObject(b) ? typesOf(b, resolve, depth + 1) : null
    if (!t) return null
    t.forEach((x) => all.add(x))
  }
  // "integer" is a subset of "number": keep the wider one only.
  if (all.has('number')) all.delete('integer')
  return [...all]
}

/**
 * Gives every schema a `type` without changing what it admits: an `anyOf`/`oneOf` (a nullable, a
 * union) gets the types its branches admit, e.g. `{"type": ["string", "null"], "anyOf": [{"type":
 * "string", "format": "uri"}, {"type": "null"}]}`; `additionalProperties: {}` becomes `true`; a
 * schema for any JSON value (`z.unknown()`) lists every JSON type. Readers that expect a type on
 * every schema accept the document then; Scalar's document validation is one.
 */
export function typeEverySchema(doc: JsonSchema) {
  const schemas = (isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {}) as Record<string, JsonSchema>
  const resolve = (ref: string) => (ref.startsWith('#/components/schemas/') ? schemas[decodeURIComponent(ref.slice(21))] : undefined)
  forEachSchema(doc, (schema) => {
    if (isObject(schema.additionalProperties) && Object.keys(schema.additionalProperties).length === 0) schema.additionalProperties = true
    if (schema.type !== undefined || typeof schema.$ref === 'string') return
    if (!CONSTRAINTS.some((k) => k in schema)) {
      schema.type = ANY_JSON
      return
    }
    const types = Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf) ? typesOf(schema, resolve) : null
    if (types) schema.type = types.length === 1 ? types[0] : types
  })
}
