'use client'

import dynamic from 'next/dynamic'
import { useCallback, useState, type ReactNode } from 'react'
import styles from './api-reference.module.css'

// Scalar is about a megabyte of script: it loads after the page has painted, while `children` (the
// server-rendered outline) stands in. Once Scalar has rendered the document, the outline goes.
const ScalarReference = dynamic(() => import('@/components/scalar-reference'), { ssr: false })

export function ApiReference({ children }: { children: ReactNode }) {
  const [loaded, setLoaded] = useState(false)
  const onLoaded = useCallback(() => setLoaded(true), [])
  return (
    <>
      {!loaded && children}
      {/* Laid out while hidden, so a deep link (#tag/…) can scroll to its section before it shows. */}
      <div className={loaded ? undefined : styles.loading} aria-hidden={loaded ? undefined : true}>
        <ScalarReference onLoaded={onLoaded} />
      </div>
    </>
  )
}
