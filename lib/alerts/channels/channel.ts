// An alert channel turns one notification into the body its receiver understands; delivery
// (lib/alerts/deliver.ts) POSTs that body as JSON to ALERT_WEBHOOK_URL, with its retries and log.
// The channels are listed in lib/alerts/channels/index.ts, which ALERT_WEBHOOK_FORMAT chooses from.

/** One row of the alerts dataset, as a channel sees it. */
export interface AlertRow {
  id: number
  at: string
  kind: string
  event: string
  alertKey: string
  name: string
  dataset: string | null
  metric: string | null
  op: string | null
  threshold: number | null
  value: number | null
  windowMinutes: number | null
  summary: string
  link: string | null
  /** A test notification sent from the view's page, not a change of state (`event` is `test`). */
  test?: boolean
}

export interface AlertChannel {
  /** Its value of ALERT_WEBHOOK_FORMAT. */
  name: string
  /** With ALERT_WEBHOOK_FORMAT=auto: whether a webhook URL is this channel's (else the generic JSON body). */
  claims?: (url: URL) => boolean
  /** The request body of one notification. */
  body: (alert: AlertRow) => Record<string, unknown>
}
