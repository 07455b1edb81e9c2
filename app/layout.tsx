import type { Metadata } from 'next'
import { connection } from 'next/server'
import { HydratedMark } from '@/components/hydrated-mark-client'
import './globals.css'

export const metadata: Metadata = {
  title: 'Utility API',
  description: 'Public utility API, MCP tool server and internal query application',
  icons: { icon: { url: '/favicon.svg', type: 'image/svg+xml' } },
}

// Every page is rendered per request: its scripts carry the nonce of that request's Content
// Security Policy (lib/gate/security-headers.ts), which a page built ahead of time cannot know.
export default async function RootLayout({ children }: { children: React.ReactNode }) {
  await connection()
  return (
    <html lang="en">
      <body>
        {children}
        <HydratedMark />
      </body>
    </html>
  )
}
