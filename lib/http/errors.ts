import { z } from 'zod'

// The wire shapes of an AppError (lib/errors.ts), per operation: existing clients of some operations
// read a shape of their own.
import { ERROR_STATUS, type ErrorCode } from '@/lib/errors'

const requestId = z.string().meta({ description: 'Id of the request; also in the X-Request-Id header and the logs.' })

// Wire shapes. `envelope` is the default; the others are the shapes existing clients of their operations read.
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]]),
      message: z.string(),
      requestId,
    }),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Error body of every operation that has no error shape of its own.' })

export const StatusMessageError = z
  .object({ status: z.literal('error'), message: z.string(), requestId: requestId.optional() })
  .meta({ id: 'StatusMessageError' })

export const SuccessFalseError = z.object({ success: z.literal(false), error: z.string(), requestId: requestId.optional() }).meta({ id: 'SuccessFalseError' })

export const ErrorStringBody = z.object({ error: z.string(), requestId: requestId.optional() }).meta({ id: 'ErrorStringBody' })

export const MessageError = z.object({ message: z.string(), requestId: requestId.optional() }).meta({ id: 'MessageError' })

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
