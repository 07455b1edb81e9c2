import type { Metadata } from 'next'
import { ApiReference } from '@/components/api-reference'

export const metadata: Metadata = { title: 'API reference · Utility API' }

// GET /api/docs - interactive reference over /api/openapi.json; loads nothing from other origins.
export default function DocsPage() {
  return <ApiReference />
}
