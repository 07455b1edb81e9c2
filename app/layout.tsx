import type { Metadata } from 'next'
import './globals.css'

export const metadata: Metadata = {
  title: 'Utility API',
  description: 'Public utility API, MCP tool server and internal query application',
  icons: { icon: { url: '/favicon.svg', type: 'image/svg+xml' } },
}

export default function RootLayout({ children }: { children: React.ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  )
}
