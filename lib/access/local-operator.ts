import { timingSafeEqual } from 'node:crypto'
import ipaddr from 'ipaddr.js'
import { processSlot } from '@/lib/process-slot'

// What server.mjs tells the application about the local operator: the per-start key it printed in
// its start-up lines (a link to /query?key=…) and the address it listens on. A browser presents the
// key in an HttpOnly, SameSite=Strict cookie, set when the link is opened. Nothing else in the
// process can produce either value: when server.mjs did not start the process, both are missing and
// the local operator is off.

// server.mjs sets this slot (by its name) when it starts listening.
const stateSlot = processSlot<LocalOperatorState>('local-operator')

export interface LocalOperatorState {
  /** The key of this start (LOCAL_OPERATOR_KEY or random; letters, digits, - and _ only). */
  key: string
  /** The address the server listens on, once it does (e.g. 127.0.0.1, ::1, 0.0.0.0). */
  listening?: string
  /** The origin of the links server.mjs printed (e.g. http://127.0.0.1:4100). */
  origin?: string
  /** The port the server listens on, once it does. */
  port?: number
}

/** Query parameter of the link that sets the key cookie. */
export const LOCAL_KEY_PARAM = 'key'

/**
 * The cookie in which the browser presents the key: `local_operator_key_<port>`. Cookies over
 * http cannot be scoped to a port (a browser sends them to every port of the host), so the name
 * carries this server's port: another server on this machine, or an earlier start on another
 * port, never has its cookie taken for this one's.
 */
export function localKeyCookieName(state: Pick<LocalOperatorState, 'port'>): string {
  return state.port ? `local_operator_key_${state.port}` : 'local_operator_key'
}

export function localOperatorState(): LocalOperatorState | null {
  const state = stateSlot.get()
  return state && typeof state.key === 'string' && state.key.length > 0 ? state : null
}

/** True for a loopback listening address (127.0.0.0/8, ::1, their IPv4-mapped form); false for wildcards and anything else. */
export function isLoopbackAddress(address: string | undefined): boolean {
  if (!address || !ipaddr.isValid(address)) return false
  return ipaddr.process(address).range() === 'loopback'
}

/** Constant-time comparison of a presented key with this start's key. */
export function keyMatches(presented: string | undefined, key: string): boolean {
  if (!presented) return false
  const a = Buffer.from(presented)
  const b = Buffer.from(key)
  return a.length === b.length && timingSafeEqual(a, b)
}

/** The Set-Cookie value that hands the key to the browser: HttpOnly, SameSite=Strict, this session only. */
export function localKeyCookie(state: Pick<LocalOperatorState, 'key' | 'port'>): string {
  return `${localKeyCookieName(state)}=${state.key}; Path=/; HttpOnly; SameSite=Strict`
}

/**
 * True when `host` (a Host header) names this server as the local operator reaches it: a loopback
 * name (localhost, 127.0.0.0/8, [::1]) at the port it listens on. The key link answers nowhere
 * else, so its cookie and redirect stay on this host and port.
 */
export function isListeningAuthority(host: string | null, state: Pick<LocalOperatorState, 'port'>): boolean {
  if (!host || !state.port) return false
  let url: URL
  try {
    url = new URL(`http://${host}`)
  } catch {
    return false
  }
  if (url.username || url.password || url.pathname !== '/' || url.host !== host.toLowerCase()) return false
  if (Number(url.port || 80) !== state.port) return false
  const name = url.hostname.replace(/^\[|\]$/g, '')
  return name === 'localhost' || isLoopbackAddress(name)
}
