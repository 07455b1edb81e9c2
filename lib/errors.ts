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

// Drivers and fetch wrap the error that says what happened: drizzle's DrizzleQueryError holds the
// driver's error (with its SQLSTATE `code`) in `cause`, undici's "fetch failed" holds the socket's.

/** How deep a cause chain is followed (a cycle or an absurd chain ends there). */
const CAUSE_DEPTH = 5

/** `error`, then each `cause` it wraps, outermost first (objects only, at most CAUSE_DEPTH). */
export function causeChain(error: unknown): object[] {
  const chain: object[] = []
  for (let e = error; e && typeof e === 'object' && chain.length < CAUSE_DEPTH; e = (e as { cause?: unknown }).cause) chain.push(e)
  return chain
}

/** The first error of the chain with a string `code` (a node error code, a SQLSTATE). */
export function codedCause(error: unknown): { code: string; message?: string } | undefined {
  return causeChain(error).find((e): e is { code: string; message?: string } => typeof (e as { code?: unknown }).code === 'string')
}

/** The error a wrapper wraps: its direct cause when that is an Error, else the error itself. */
export function innerError(error: unknown): unknown {
  return error instanceof Error && error.cause instanceof Error ? error.cause : error
}

/** The wrapped error's own words (the driver's, the socket's), else the error's message. */
export function causeMessage(error: unknown): string {
  const inner = innerError(error)
  return inner instanceof Error ? inner.message : String(inner)
}

/**
 * Whether a database error means the server could not be reached or dropped the connection, rather
 * than refusing a statement: a socket error (ECONNREFUSED, ETIMEDOUT…), SQLSTATE class 08
 * (connection exception), 57P01–57P03 (shut down, crashed, not accepting connections yet), or the
 * driver's own words for a connection that ended or never opened.
 */
export function isConnectionFailure(error: unknown): boolean {
  const code = codedCause(error)?.code
  if (code) return /^E[A-Z]+$/.test(code) || code.startsWith('08') || /^57P0[123]$/.test(code)
  return causeChain(error).some((e) => /Connection terminated|connection timeout|Client has encountered a connection error/i.test(String((e as Error).message)))
}
