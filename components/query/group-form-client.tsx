'use client'

import Form from 'next/form'
import { useRouter } from 'next/navigation'
import type { ReactNode } from 'react'
import { groupSubmitQuery } from '@/lib/view/group-state'

// The group-by form. Its hidden fields carry the range and filter the page was rendered with (so it
// works without script); with script, Group submits the query form's range and filter as they stand,
// so a range changed there and not yet run is the one grouped (not the page's old one).
export function GroupFormClient({ path, className, children }: { path: string; className?: string; children: ReactNode }) {
  const router = useRouter()
  function onSubmit(e: React.FormEvent<HTMLFormElement>) {
    const query = document.querySelector<HTMLFormElement>('form[aria-label="Query"]')
    if (!query) return
    e.preventDefault()
    const fields = (form: HTMLFormElement) => [...new FormData(form)].flatMap(([k, v]) => (typeof v === 'string' ? [[k, v] as [string, string]] : []))
    router.push(`${path}?${groupSubmitQuery(fields(query), fields(e.currentTarget))}`)
  }
  return (
    <Form action={path} className={className} aria-label="Group by" onSubmit={onSubmit}>
      {children}
    </Form>
  )
}
