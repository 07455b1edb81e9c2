'use client'

import { useRouter } from 'next/navigation'
import { useEffect, useRef } from 'react'
import { formatWallTime } from '@/lib/view/time'
import { snapToBuckets, viewHref, type ViewState } from '@/lib/view/view-state'

/**
 * A time chart's selection handler: a drag (or a tapped bar) narrows the page's range to the whole
 * buckets under it, as a custom from/to in the page's time zone, so the URL and the form show it.
 */
export function useNarrowOnSelect(path: string, state: ViewState, bucketSeconds: number, range: { from: string; to: string }) {
  const router = useRouter()
  const onSelect = useRef<((fromMs: number, toMs: number) => void) | null>(null)
  useEffect(() => {
    onSelect.current = (fromMs, toMs) => {
      const span = snapToBuckets(fromMs, toMs, bucketSeconds * 1000, { from: Date.parse(range.from), to: Date.parse(range.to) })
      if (span.from >= span.to) return
      router.push(viewHref(path, state, { range: 'custom', from: formatWallTime(span.from, state.tz), to: formatWallTime(span.to, state.tz), offset: 0 }))
    }
  }, [router, path, state, bucketSeconds, range.from, range.to])
  return onSelect
}
