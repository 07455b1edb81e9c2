import 'server-only'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent } from 'undici'

// gdmf.apple.com chains to Apple's own root, which is not in Node's (Mozilla) trust store. The
// root shipped in lib/deviceos/certs/ (provenance and fingerprint in the README there) is trusted
// for Apple's hosts only, through a dedicated dispatcher: nothing is added to the process-wide
// store and verification is never turned off.

export const APPLE_ROOT_PEM_PATH = join(process.cwd(), 'lib', 'deviceos', 'certs', 'apple-root-ca.pem')

/** An undici dispatcher that accepts only chains ending at the given root(s). */
export function createPinnedDispatcher(caPem: string | string[]): Agent {
  return new Agent({ connect: { ca: caPem } })
}

let appleDispatcher: Agent | undefined

/** The dispatcher for a gdmf URL: pinned to Apple's root for https://*.apple.com, none (default trust) otherwise. */
export function dispatcherFor(url: string): Agent | undefined {
  const u = new URL(url)
  const apple = u.hostname === 'apple.com' || u.hostname.endsWith('.apple.com')
  if (u.protocol !== 'https:' || !apple) return undefined
  return (appleDispatcher ??= createPinnedDispatcher(readFileSync(APPLE_ROOT_PEM_PATH, 'utf8')))
}
