import { isIP } from 'node:net'
import { config } from '@/lib/config'
import { CONNECTION_IP_HEADER } from '@/lib/http/headers'
import { processSlot } from '@/lib/process-slot'

// server.mjs sets this slot (by its name) before the application loads.
const stamped = processSlot<boolean>('connection-ip-stamped')

/** True when this process was started by server.mjs, so CONNECTION_IP_HEADER can be believed. */
export const connectionIpIsStamped = () => stamped.get() === true

function normalise(value: string | null | undefined): string | null {
  if (!value) return null
  let ip = value.trim()
  if (ip.startsWith('[') && ip.includes(']')) ip = ip.slice(1, ip.indexOf(']'))
  if (ip.toLowerCase().startsWith('::ffff:') && isIP(ip.slice(7)) === 4) ip = ip.slice(7)
  return isIP(ip) ? ip.toLowerCase() : null
}

/**
 * The client's address for rate limiting and logs. A forwarding header is believed only when
 * TRUSTED_IP_HEADER names it (the operator's proxy sets it); otherwise the connection's address.
 * A client can never pick its own bucket through a header nobody configured.
 */
export function clientIpFrom(headers: Headers, trusted = config.TRUSTED_IP_HEADER): string {
  if (trusted) {
    const raw = headers.get(trusted)
    const fromHeader = normalise(trusted === 'x-forwarded-for' ? raw?.split(',')[0] : raw)
    if (fromHeader) return fromHeader
  }
  if (connectionIpIsStamped()) return normalise(headers.get(CONNECTION_IP_HEADER)) ?? 'unknown'
  return 'unknown'
}
