import { createWorkspaceStore } from '@scalar/workspace-store/client'
import { describe, expect, it, vi } from 'vitest'
import { buildOpenApiDocument } from '@/lib/openapi/document'
import { forEachSchema } from '@/lib/openapi/schema-fixes'

// The published document as readers see it: no invented limits, and accepted by the reference UI's
// own validation (Scalar logs "document validation errors" for schemas it cannot read).

const doc = buildOpenApiDocument() as unknown as Record<string, unknown>
const schemas: Record<string, unknown>[] = []
forEachSchema(doc, (s) => schemas.push(s))

describe('OpenAPI document schemas', () => {
  it('never publishes the safe-integer range as a limit', () => {
    const bounds = schemas.filter((s) => [s.minimum, s.maximum].some((b) => Math.abs(Number(b)) === Number.MAX_SAFE_INTEGER))
    expect(bounds).toEqual([])
  })

  it('keeps the real bounds of an integer', () => {
    const limit = doc.paths as Record<string, Record<string, { parameters: { name: string; schema: Record<string, unknown> }[] }>>
    const count = limit['/generate/guid'].get.parameters.find((p) => p.name === 'count')
    expect(count?.schema).toMatchObject({ minimum: 1, maximum: 500 })
  })

  it('gives every schema a type', () => {
    expect(schemas.length).toBeGreaterThan(500)
    const untyped = schemas.filter((s) => s.type === undefined && s.$ref === undefined)
    expect(untyped).toEqual([])
  })

  it("passes Scalar's document validation without warnings", async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const info = vi.spyOn(console, 'info').mockImplementation(() => {})
    try {
      const store = createWorkspaceStore()
      await store.addDocument({ name: 'api', document: structuredClone(doc) })
      expect(store.workspace.documents.api?.info?.title).toBe('Utility API')
      expect(warn.mock.calls).toEqual([])
    } finally {
      warn.mockRestore()
      info.mockRestore()
    }
  })
})
