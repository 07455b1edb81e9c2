import { config, type Config } from '@/lib/config'
import type { AlertChannel } from '@/lib/alerts/channels/channel'
import { jsonChannel } from '@/lib/alerts/channels/json'
import { slackChannel } from '@/lib/alerts/channels/slack'

// The alert channels ALERT_WEBHOOK_FORMAT chooses from. A new channel is one file in this folder
// and one line here. `auto` (the default) picks the first channel that claims the webhook URL, else
// the generic JSON body.
const CHANNELS: readonly AlertChannel[] = [jsonChannel, slackChannel]

const AUTO = 'auto'
const choices = () => [AUTO, ...CHANNELS.map((c) => c.name)].join(', ')

/** Start-up check: ALERT_WEBHOOK_FORMAT names a channel (the message names the variable). */
export function checkAlertChannelSetting(c: Pick<Config, 'ALERT_WEBHOOK_FORMAT'> = config): void {
  if (c.ALERT_WEBHOOK_FORMAT !== AUTO && !CHANNELS.some((ch) => ch.name === c.ALERT_WEBHOOK_FORMAT))
    throw new Error(`ALERT_WEBHOOK_FORMAT: "${c.ALERT_WEBHOOK_FORMAT}" is not a channel: one of ${choices()}`)
}

/** The channel notifications to `url` go through under the given setting (ALERT_WEBHOOK_FORMAT by default). */
export function alertChannel(url: string, setting: string = config.ALERT_WEBHOOK_FORMAT): AlertChannel {
  checkAlertChannelSetting({ ALERT_WEBHOOK_FORMAT: setting })
  if (setting !== AUTO) return CHANNELS.find((c) => c.name === setting)!
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return jsonChannel
  }
  return CHANNELS.find((c) => c.claims?.(parsed)) ?? jsonChannel
}
