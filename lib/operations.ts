import { pathPattern, type Operation } from '@/lib/http/operation'
import { blogOperations } from '@/lib/blog/operations'
import { bookingsOperations } from '@/lib/bookings/operations'
import { deviceosOperations } from '@/lib/deviceos/operations'
import { directoryOperations } from '@/lib/directory/operations'
import { domainOperations } from '@/lib/domains/operations'
import { generateOperations } from '@/lib/generate/operations'
import { healthOperations } from '@/lib/health/operations'
import { ipcheckOperations } from '@/lib/ipcheck/operations'
import { officeOperations } from '@/lib/office/operations'
import { pdsOperations } from '@/lib/pds/operations'
import { policyOperations } from '@/lib/policies/operations'

// Every REST operation of the API, in document order. Add a domain's list here and its operations
// appear in the OpenAPI document, the contract tests and (when internal) the key gate.
export const operations: readonly Operation[] = [
  ...healthOperations,
  ...pdsOperations,
  ...blogOperations,
  ...domainOperations,
  ...directoryOperations,
  ...officeOperations,
  ...deviceosOperations,
  ...ipcheckOperations,
  ...generateOperations,
  ...policyOperations,
  ...bookingsOperations,
] as Operation[]

const patterns = operations.map((op) => ({ op, pattern: pathPattern(op.path) }))

/** The operations of the path `pathname` (`/api/...`), one per method. */
export function operationsAt(pathname: string): Operation[] {
  return patterns.filter((p) => p.pattern.test(pathname)).map((p) => p.op)
}

export function isInternalOperation(method: string, pathname: string): boolean {
  return operationsAt(pathname).some((op) => op.internal && op.method === method)
}
