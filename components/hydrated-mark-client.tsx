'use client'

import { useEffect } from 'react'

// Marks the document once React has hydrated it (`<html data-hydrated>`): from then on buttons and
// forms run their handlers instead of the browser's defaults. Browser tests wait for it.
export function HydratedMark() {
  useEffect(() => document.documentElement.setAttribute('data-hydrated', ''), [])
  return null
}
