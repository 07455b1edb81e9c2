import { LoadingState } from '@/components/query/states'

// Shown while a query page renders on first navigation; later changes of the URL state show the
// Suspense fallback of the page's results instead.
export default function Loading() {
  return <LoadingState>Loading…</LoadingState>
}
