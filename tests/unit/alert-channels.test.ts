import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { alertChannel, checkAlertChannelSetting } from '@/lib/alerts/channels'
import type { AlertRow } from '@/lib/alerts/channels/channel'
import { jsonChannel } from '@/lib/alerts/channels/json'
import { slackChannel } from '@/lib/alerts/channels/slack'
import { loadConfig } from '@/lib/config'

// The bodies the alert channels send, and how ALERT_WEBHOOK_FORMAT picks one. Delivery itself (retries,
// the attempt log, a receiver that is down) is in tests/unit/alerts.test.ts.

const condition: AlertRow = {
  id: 42,
  at: '2026-11-24T10:05:00.000Z',
  kind: 'condition',
  event: 'fired',
  alertKey: 'view:2f6c',
  name: 'API <errors>',
  dataset: 'requests',
  metric: 'error_rate',
  op: 'above',
  threshold: 0.05,
  value: 0.125,
  windowMinutes: 15,
  summary: 'Error rate 12.5 % & rising is above 5 % over the last 15 min.',
  link: 'https://api.example.com/query?dataset=requests&range=24h',
}
const posture: AlertRow = {
  ...condition,
  id: 43,
  kind: 'posture',
  event: 'changed',
  alertKey: 'posture:example.com',
  name: 'example.com',
  dataset: null,
  metric: null,
  op: null,
  threshold: null,
  value: null,
  windowMinutes: null,
  summary: 'example.com: mail and DNS posture changed: grade B → A.',
  link: null,
}

describe('json channel', () => {
  it('sends the row with its condition and value, the body docs/alerts.md shows', () => {
    expect(jsonChannel.body(condition)).toEqual({
      id: 42,
      at: '2026-11-24T10:05:00.000Z',
      kind: 'condition',
      event: 'fired',
      key: 'view:2f6c',
      name: 'API <errors>',
      summary: 'Error rate 12.5 % & rising is above 5 % over the last 15 min.',
      condition: { dataset: 'requests', metric: 'error_rate', op: 'above', threshold: 0.05, windowMinutes: 15 },
      value: 0.125,
      link: 'https://api.example.com/query?dataset=requests&range=24h',
    })
    // The documented example has the same keys in the same order.
    const documented = /`ALERT_WEBHOOK_FORMAT=json`[^\n]*\n\n```json\n([\s\S]*?)```/.exec(
      readFileSync(new URL('../../docs/alerts.md', import.meta.url), 'utf8'),
    )
    expect(Object.keys(jsonChannel.body(condition))).toEqual(Object.keys(JSON.parse(documented![1])))
  })

  it('leaves condition and value out of a posture change', () => {
    expect(jsonChannel.body(posture)).toEqual({
      id: 43,
      at: '2026-11-24T10:05:00.000Z',
      kind: 'posture',
      event: 'changed',
      key: 'posture:example.com',
      name: 'example.com',
      summary: 'example.com: mail and DNS posture changed: grade B → A.',
      link: null,
    })
  })
})

// What Slack's incoming webhooks take (https://api.slack.com/messaging/webhooks, Block Kit reference
// https://api.slack.com/reference/block-kit/blocks): `text` as the notification fallback, at most 50
// blocks; a section's text and each context element a text object of at most 3000 characters, at
// most 10 elements in a context. The body is typed with Slack's @slack/types; this checks the values.
type TextObject = { type: string; text: string }
type SlackMessage = { text: string; blocks: Array<{ type: string; text?: TextObject; elements?: TextObject[] }> }

function slackFormatProblems(body: SlackMessage): string[] {
  const problems: string[] = []
  const text = (where: string, t: TextObject | undefined) => {
    if (!t || !['mrkdwn', 'plain_text'].includes(t.type)) problems.push(`${where}: not a text object`)
    else if (t.text.length === 0 || t.text.length > 3000) problems.push(`${where}: ${t.text.length} characters`)
  }
  if (Object.keys(body).some((k) => !['text', 'blocks'].includes(k))) problems.push(`keys ${Object.keys(body).join(', ')}`)
  if (typeof body.text !== 'string' || !body.text) problems.push('no text fallback')
  if (body.blocks.length > 50) problems.push('more than 50 blocks')
  body.blocks.forEach((block, i) => {
    if (block.type === 'section') text(`block ${i}`, block.text)
    else if (block.type === 'context') {
      if (!block.elements?.length || block.elements.length > 10) problems.push(`block ${i}: ${block.elements?.length ?? 0} elements`)
      block.elements?.forEach((e, j) => text(`block ${i} element ${j}`, e))
    } else problems.push(`block ${i}: type ${block.type}`)
  })
  return problems
}

describe('slack channel', () => {
  it('sends text, and blocks with the title and summary in a section, source, time and link in a context', () => {
    expect(slackChannel.body(condition)).toEqual({
      text: 'FIRING: API <errors>: Error rate 12.5 % & rising is above 5 % over the last 15 min.',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*FIRING: API &lt;errors&gt;*\nError rate 12.5 % &amp; rising is above 5 % over the last 15 min.' } },
        {
          type: 'context',
          elements: [{ type: 'mrkdwn', text: 'Saved view · 2026-11-24T10:05:00.000Z · <https://api.example.com/query?dataset=requests&range=24h|Open>' }],
        },
      ],
    })
    expect(slackChannel.body(posture)).toMatchObject({
      text: 'CHANGED: example.com: example.com: mail and DNS posture changed: grade B → A.',
      blocks: [{ type: 'section' }, { type: 'context', elements: [{ type: 'mrkdwn', text: 'Domain posture · 2026-11-24T10:05:00.000Z' }] }],
    })
  })

  it.each([
    ['a condition', condition],
    ['a posture change', posture],
    ['a resolution', { ...condition, event: 'resolved' }],
  ])('the body of %s is a message Slack accepts', (_, alert) => {
    expect(slackFormatProblems(slackChannel.body(alert) as SlackMessage)).toEqual([])
  })

  it('the format check finds what Slack would refuse', () => {
    expect(slackFormatProblems({ text: '', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x'.repeat(3001) } }, { type: 'button' }] })).toEqual([
      'no text fallback',
      'block 0: 3001 characters',
      'block 1: type button',
    ])
  })
})

describe('ALERT_WEBHOOK_FORMAT', () => {
  it('auto picks slack for a Slack incoming-webhook URL and json for any other', () => {
    expect(alertChannel('https://hooks.slack.com/services/T0/B0/x', 'auto')).toBe(slackChannel)
    expect(alertChannel('https://example.com/hook', 'auto')).toBe(jsonChannel)
    expect(alertChannel('not a url', 'auto')).toBe(jsonChannel)
  })

  it('a channel named by the setting is used whatever the URL', () => {
    expect(alertChannel('https://example.com/hook', 'slack')).toBe(slackChannel)
    expect(alertChannel('https://hooks.slack.com/services/T0/B0/x', 'json')).toBe(jsonChannel)
  })

  it('is auto by default; a name that is no channel stops start-up with a message naming the variable', () => {
    expect(loadConfig({}).ALERT_WEBHOOK_FORMAT).toBe('auto')
    for (const ALERT_WEBHOOK_FORMAT of ['auto', 'json', 'slack']) expect(() => checkAlertChannelSetting({ ALERT_WEBHOOK_FORMAT })).not.toThrow()
    expect(() => checkAlertChannelSetting(loadConfig({ ALERT_WEBHOOK_FORMAT: 'teams' }))).toThrow(
      'ALERT_WEBHOOK_FORMAT: "teams" is not a channel: one of auto, json, slack',
    )
    expect(() => alertChannel('https://example.com/hook', 'teams')).toThrow(/ALERT_WEBHOOK_FORMAT/)
  })
})
