'use client'

import '@/components/zod-jitless'
import { useEffect, useMemo, useRef } from 'react'
import { ApiReferenceReact } from '@scalar/api-reference-react'
import '@scalar/api-reference-react/style.css'
import './scalar-reference.css'
import { repairScalarAria } from '@/components/scalar-aria'
import { operationSlug, tagSlug } from '@/lib/openapi/anchors'

// Loaded on demand by components/api-reference.tsx. Offline configuration: no web fonts, no
// telemetry, no proxy or developer tools from Scalar's CDN. Section slugs come from our anchors,
// so the outline's links and the landing page's land where they point.
export default function ScalarReference({ onLoaded }: { onLoaded: () => void }) {
  const root = useRef<HTMLDivElement>(null)
  useEffect(() => (root.current ? repairScalarAria(root.current) : undefined), [])
  const configuration = useMemo(
    () => ({
      url: '/api/openapi.json',
      telemetry: false,
      withDefaultFonts: false,
      showDeveloperTools: 'never' as const,
      hideClientButton: true,
      agent: { disabled: true },
      generateTagSlug: (tag: { name?: string }) => tagSlug(tag.name ?? ''),
      generateOperationSlug: (op: { method: string; path: string }) => operationSlug(op.method, op.path),
      onLoaded,
    }),
    [onLoaded],
  )
  return (
    <div ref={root}>
      <ApiReferenceReact configuration={configuration} />
    </div>
  )
}
