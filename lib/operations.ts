import { pathPattern, type Operation } from '@/lib/http/operation'
import { deviceosOperations } from '@/lib/deviceos/operations'
import { directoryOperations } from '@/lib/directory/operations'
import { generateOperations } from '@/lib/generate/operations'
import { healthOperations } from '@/lib/health/operations'
import { ipcheckOperations } from '@/lib/ipcheck/operations'
import { pdsOperations } from '@/lib/pds/operations'

// Every REST operation of the API, in document order. Add a domain's list here and its operations
// appear in the OpenAPI document, the contract tests and (when internal) the key gate.
export const operations: readonly Operation[] = [
  ...healthOperations,
  ...pdsOperations,
  ...directoryOperations,
  ...deviceosOperations,
  ...ipcheckOperations,
  ...generateOperations,
] as Operation[]

const internal = operations.filter((op) => op.internal).map((op) => ({ method: op.method, pattern: pathPattern(op.path) }))

export function isInternalOperation(method: string, pathname: string): boolean {
  return internal.some((op) => op.method === method && op.pattern.test(pathname))
}
