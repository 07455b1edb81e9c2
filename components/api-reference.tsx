'use client'

import { ApiReferenceReact } from '@scalar/api-reference-react'
import '@scalar/api-reference-react/style.css'

// Offline configuration: no web fonts, no telemetry, no proxy or developer tools from Scalar's CDN.
export function ApiReference() {
  return (
    <ApiReferenceReact
      configuration={{
        url: '/api/openapi.json',
        telemetry: false,
        withDefaultFonts: false,
        showDeveloperTools: 'never',
        hideClientButton: true,
        agent: { disabled: true },
      }}
    />
  )
}
