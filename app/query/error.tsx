'use client'

import { ErrorState } from '@/components/query/states'

// An unexpected failure while rendering (expected ones, such as a rejected filter or a timeout,
// are shown by the page itself). Production builds hide the message; the digest is in the logs.
export default function QueryError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <>
      <ErrorState title="Something went wrong" message={error.digest ? `Reference ${error.digest} (in the server log).` : error.message} />
      <button type="button" onClick={reset}>
        Try again
      </button>
    </>
  )
}
