import { createHash } from 'node:crypto'
import { alertChannel } from '@/lib/alerts/channels'
import { config } from '@/lib/config'
import type { Condition, Destination } from '@/lib/saved-views/condition'

// Where a notification goes: the condition's own destinations, else the configured default
// (ALERT_WEBHOOK_URL in ALERT_WEBHOOK_FORMAT); posture changes always go to the default. A
// destination is named by its label wherever others can read it (the alerts dataset's attempt
// log, the test's answer): a webhook's path is often its secret (Slack's is).

export interface Target {
  url: string
  /** A channel's name, or auto. */
  format: string
}

/** The configured default destination, if any (a test may name another). */
export function defaultDestinations(url: string | undefined = config.ALERT_WEBHOOK_URL, format: string = config.ALERT_WEBHOOK_FORMAT): Target[] {
  return url ? [{ url, format }] : []
}

export function alertDestinations(condition: Pick<Condition, 'destinations'> | null, fallback: Target[] = defaultDestinations()): Target[] {
  const own: Destination[] = condition?.destinations ?? []
  return own.length ? own.map((d) => ({ url: d.url, format: d.format })) : fallback
}

/**
 * `slack → https://hooks.slack.com #3f9a1c`: the channel that shapes the body, the receiver's origin
 * and the start of the URL's SHA-256, which tells apart two webhooks on one origin (two Slack
 * channels) without saying anything of their paths.
 */
export function destinationLabel(d: Target): string {
  let origin = 'an invalid URL'
  try {
    origin = new URL(d.url).origin
  } catch {
    // Reported as such; delivery fails with its own message.
  }
  return `${alertChannel(d.url, d.format).name} → ${origin} #${createHash('sha256').update(d.url).digest('hex').slice(0, 6)}`
}
