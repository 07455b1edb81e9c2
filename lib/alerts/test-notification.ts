import 'server-only'
import { alertChannel } from '@/lib/alerts/channels'
import type { AlertRow } from '@/lib/alerts/channels/channel'
import { postNotification } from '@/lib/alerts/deliver'
import { alertDestinations, destinationLabel } from '@/lib/alerts/destinations'
import { presentAlert } from '@/lib/alerts/job'
import { config } from '@/lib/config'
import { DATASETS } from '@/lib/datasets/catalog'
import type { Db } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { describeCondition } from '@/lib/saved-views/condition'
import { getSaved } from '@/lib/saved-views/views'
import { parseViewState } from '@/lib/view/view-state'

// "Send a test notification" on a saved view with an alert: one notification marked as a test
// (`event: "test"`, `test: true`), shaped by the same channel and sent through the same delivery
// (postNotification: retries, deadline, size cap) to the same destinations as a real firing, so
// the operator sees whether the receiver takes it. Nothing is recorded in the alerts dataset: a
// test is not a change of state, and it never touches the cooldown.

/** A test waits at most this long for its receivers, all attempts included. */
const TEST_BUDGET_MS = 20_000

export interface TestOutcome {
  /** The channel and the receiver's origin: never the URL, whose path is often the secret. */
  destination: string
  delivered: boolean
  status: number | null
  error: string | null
  attempts: number
}

export interface TestResult {
  /** A sentence for the page: where it went and how it ended. */
  message: string
  outcomes: TestOutcome[]
}

export async function sendTestNotification(owner: string, id: string, opts: { db?: Db; now?: () => Date } = {}): Promise<TestResult> {
  const view = await getSaved(owner, id, opts.db)
  const condition = view.condition
  if (!condition) throw new AppError('invalid_input', 'This saved view has no alert condition: set one before sending a test notification.')
  const destinations = alertDestinations(condition)
  if (!destinations.length)
    throw new AppError('not_configured', 'No destination to send to: set ALERT_WEBHOOK_URL, or give the alert a destination of its own.')
  const at = (opts.now ?? (() => new Date()))()
  const { state } = parseViewState(Object.fromEntries(new URLSearchParams(view.view)))
  const key = `view:${view.id}`
  const { link } = presentAlert(
    config.PUBLIC_BASE_URL,
    { kind: 'condition', name: null, alertKey: key, at, windowMinutes: condition.windowMinutes },
    new Map([[key, view]]),
  )
  const alert: AlertRow = {
    id: 0,
    at: at.toISOString(),
    kind: 'condition',
    event: 'test',
    alertKey: key,
    name: view.name,
    dataset: state.dataset,
    metric: condition.metric,
    op: condition.op,
    threshold: condition.threshold,
    value: null,
    windowMinutes: condition.windowMinutes,
    summary: `Test notification for saved view ${view.id}, nothing is firing: it fires when ${describeCondition(condition).replace(/^./, (c) => c.toLowerCase())} (${DATASETS[state.dataset].label}).`,
    link,
    test: true,
  }
  const deadline = Date.now() + Math.min(TEST_BUDGET_MS, config.ALERT_DELIVERY_BUDGET_MS)
  const outcomes = await Promise.all(
    destinations.map(async (d): Promise<TestOutcome> => {
      const attempts = await postNotification(d.url, JSON.stringify(alertChannel(d.url, d.format).body(alert)), {
        maxAttempts: config.ALERT_DELIVERY_ATTEMPTS,
        backoffMs: 500,
        deadline,
      })
      const last = attempts.at(-1)
      return {
        destination: destinationLabel(d),
        delivered: last?.ok === true,
        status: last?.status ?? null,
        error: last?.error ?? null,
        attempts: attempts.length,
      }
    }),
  )
  return { message: outcomes.map(describeOutcome).join(' '), outcomes }
}

/** `Delivered to json → https://hooks.example.com (HTTP 200).` / `Not delivered to …: HTTP 500 (…).` */
function describeOutcome(o: TestOutcome): string {
  if (o.delivered) return `Delivered to ${o.destination} (HTTP ${o.status}).`
  const tries = o.attempts > 1 ? ` after ${o.attempts} attempts` : ''
  return `Not delivered to ${o.destination}${tries}: ${o.error ?? (o.status ? `HTTP ${o.status}` : 'no answer')}.`
}
