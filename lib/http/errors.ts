import { z } from 'zod'

// One error class, one code → status table, and the wire shapes the spec fixes per operation.

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

const requestId = z.string().meta({ description: 'Id of the request; also in the X-Request-Id header and the logs.' })

// Wire shapes. `envelope` is the default; the others are fixed by the spec for their operations.
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      requestId,
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Error body of every operation whose shape the spec does not fix.' })

export const StatusMessageError = z
  .object({ status: z.literal('error'), message: z.string(), requestId: requestId.optional() })
  .meta({ id: 'StatusMessageError' })

export const SuccessFalseError = z
  .object({ success: z.literal(false), error: z.string(), requestId: requestId.optional() })
  .meta({ id: 'SuccessFalseError' })

export const ErrorStringBody = z
  .object({ error: z.string(), requestId: requestId.optional() })
  .meta({ id: 'ErrorStringBody' })

export const MessageError = z
  .object({ message: z.string(), requestId: requestId.optional() })
  .meta({ id: 'MessageError' })

export const ERROR_FORMATS = {
  envelope: {
    schema: ErrorEnvelope,
    body: (code: ErrorCode, message: string, id: string) => ({ error: { code, message, requestId: id } }),
  },
  statusMessage: {
    schema: StatusMessageError,
    body: (_code: ErrorCode, message: string, id: string) => ({ status: 'error' as const, message, requestId: id }),
  },
  successFalse: {
    schema: SuccessFalseError,
    body: (_code: ErrorCode, message: string, id: string) => ({ success: false as const, error: message, requestId: id }),
  },
  errorString: {
    schema: ErrorStringBody,
    body: (_code: ErrorCode, message: string, id: string) => ({ error: message, requestId: id }),
  },
  message: {
    schema: MessageError,
    body: (_code: ErrorCode, message: string, id: string) => ({ message, requestId: id }),
  },
} as const

export type ErrorFormat = keyof typeof ERROR_FORMATS

export function errorBody(format: ErrorFormat, code: ErrorCode, message: string, requestId: string) {
  return ERROR_FORMATS[format].body(code, message, requestId)
}
