import { AppError } from '@/lib/errors'

/** The AppError a promise rejects with; any other outcome fails the test. */
export async function appError(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof AppError) return error
    throw error
  }
  throw new Error('expected an AppError')
}
