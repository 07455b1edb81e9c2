import type { KnownBlock } from '@slack/types'
import type { AlertChannel } from '@/lib/alerts/channels/channel'

// A Slack incoming webhook's body (https://api.slack.com/messaging/webhooks): `text` is the plain-text
// fallback of notifications, `blocks` the message shown (Block Kit, typed by Slack's own
// @slack/types): the title and summary in a section; the source, time and link in a context.

const EVENT_TITLES: Record<string, string> = { fired: 'FIRING', resolved: 'RESOLVED', changed: 'CHANGED', test: 'TEST' }

/** Slack's mrkdwn reads &, < and > as markup. */
const escapeSlack = (text: string) => text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;')

export const slackChannel: AlertChannel = {
  name: 'slack',
  claims: (url) => url.hostname === 'hooks.slack.com',
  body: (alert) => {
    const title = `${EVENT_TITLES[alert.event] ?? alert.event.toUpperCase()}: ${alert.name}`
    const context = [`${alert.kind === 'posture' ? 'Domain posture' : 'Saved view'} · ${alert.at}`, ...(alert.link ? [`<${alert.link}|Open>`] : [])].join(' · ')
    const blocks: KnownBlock[] = [
      { type: 'section', text: { type: 'mrkdwn', text: `*${escapeSlack(title)}*\n${escapeSlack(alert.summary)}` } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: context }] },
    ]
    return { text: `${title}: ${alert.summary}`, blocks }
  },
}
