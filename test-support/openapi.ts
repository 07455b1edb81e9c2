import OpenAPIBackend from 'openapi-backend'
import { expect } from 'vitest'

// Validates live responses against the OpenAPI document the app serves, so a response that drifts
// from its declared schema (or a status the document does not declare) fails the test.

export async function loadContract(appUrl: string) {
  const definition = await (await fetch(`${appUrl}/api/openapi.json`)).json()
  // quick: openapi-backend's own validator is 3.0-only; the response validation still runs.
  const api = new OpenAPIBackend({ definition, quick: true, strict: false, validate: true })
  await api.init()
  return {
    definition,
    /** Asserts `body` with `status` is a declared response of the operation at method + path. */
    expectValid(method: string, path: string, status: number, body: unknown) {
      const op = api.matchOperation({ method, path: path.replace(/^\/api/, '').split('?')[0], headers: {} })
      expect(op, `${method} ${path} is not in the OpenAPI document`).toBeTruthy()
      const declared = Object.keys(op!.responses ?? {})
      expect(declared, `${method} ${path}: status ${status} not declared`).toContain(String(status))
      const result = api.validateResponse(body, op!, status)
      expect(result.errors ?? [], `${method} ${path} ${status}: ${JSON.stringify(result.errors)}\nbody: ${JSON.stringify(body).slice(0, 500)}`).toEqual([])
    },
  }
}
