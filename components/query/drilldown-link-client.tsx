'use client'

import Link from 'next/link'
import { useRouter } from 'next/navigation'
import type { ReactNode } from 'react'

// A link that adds `column = value` to the filter; Alt/Option-click follows `excludeHref`
// (`column != value`) instead. A plain link otherwise: it opens in a new tab, and works before
// the page is interactive.
export function DrilldownLink({
  href,
  excludeHref,
  className,
  title,
  children,
}: {
  href: string
  excludeHref: string
  className?: string
  title?: string
  children: ReactNode
}) {
  const router = useRouter()
  return (
    <Link
      href={href}
      className={className}
      title={title}
      onClick={(e) => {
        if (!e.altKey) return
        e.preventDefault()
        router.push(excludeHref)
      }}
    >
      {children}
    </Link>
  )
}
