import type { z } from 'zod'

// The application's error vocabulary: one error class and one code → status table. A leaf:
// domains, upstream adapters and the data layer throw these; lib/http maps them to wire shapes.

export const ERROR_STATUS = {
  invalid_input: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  headers_too_large: 431,
  internal: 500,
  upstream_failed: 502,
  not_configured: 503,
  unavailable: 503,
  upstream_timeout: 504,
} as const satisfies Record<string, number>

export type ErrorCode = keyof typeof ERROR_STATUS

export class AppError extends Error {
  readonly status: number
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'AppError'
    this.status = ERROR_STATUS[code]
  }
}

/** Turns a Zod failure into one sentence naming each bad parameter. */
export function describeZodError(error: z.ZodError, where = ''): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.join('.')
      const name = path ? `${where}${path}` : where.replace(/\.$/, '') || 'input'
      return `${name}: ${issue.message}`
    })
    .join('; ')
}
