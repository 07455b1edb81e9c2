import { DATASETS, type DatasetDef, type DatasetId } from '@/lib/datasets/catalog'
import { viewHref, type SearchParams, type ViewState } from '@/lib/view/view-state'

// The group-by page's own URL parameters, on top of the view state (lib/view/view-state.ts):
// `by=route,status` (one or two columns), `gsort=-count` (a measure, `-` for descending) and
// `rows=1` (read the rows even where the rollup answers, for per-group percentiles) and `every=hour`
// or `every=day` (split each group per period, cut in the page's time zone). A parameter
// that cannot be used falls back to its default with a notice, like the rest of the URL. Pure: the
// page and its links use it.

export interface GroupState {
  by: string[]
  sort: string
  desc: boolean
  rows: boolean
  /** Split each group per hour or day ('' for no split). */
  every: '' | 'hour' | 'day'
}

const one = (v: string | string[] | undefined) => ((Array.isArray(v) ? v[0] : v) ?? '').trim()

/** Columns a dataset may be grouped by: all but the time column and JSON ones. */
export function groupableColumns(dataset: DatasetDef): string[] {
  return dataset.columns.filter((c) => c.name !== dataset.timeColumn && c.type !== 'timestamp' && c.type !== 'json').map((c) => c.name)
}

/** The column a group-by page starts with: the dataset's first breakdown or top panel's column. */
export function defaultGroupColumn(dataset: DatasetDef): string {
  const panel = dataset.panels.find((p) => p.kind === 'breakdown' || p.kind === 'top')
  return panel && (panel.kind === 'breakdown' || panel.kind === 'top') ? panel.column : groupableColumns(dataset)[0]
}

export function parseGroupState(sp: SearchParams, datasetId: DatasetId, sorts: string[]): { group: GroupState; notices: string[] } {
  const dataset = DATASETS[datasetId]
  const notices: string[] = []
  const allowed = groupableColumns(dataset)
  // The form's two selects send `by` twice; a link sends it once, comma-separated.
  const asked = (Array.isArray(sp.by) ? sp.by.join(',') : (sp.by ?? ''))
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean)
  const unknown = asked.filter((c) => !allowed.includes(c))
  if (unknown.length) notices.push(`${unknown.map((c) => `“${c}”`).join(', ')} cannot be grouped by in ${dataset.label}; left out.`)
  let by = [...new Set(asked.filter((c) => allowed.includes(c)))]
  if (by.length > 2) {
    notices.push('Groups are by one or two columns; the first two are used.')
    by = by.slice(0, 2)
  }
  if (!by.length) by = [defaultGroupColumn(dataset)]
  const sortParam = one(sp.gsort)
  const sortName = sortParam.replace(/^-/, '')
  let sort = 'count'
  let desc = true
  if (sortName && sorts.includes(sortName)) {
    sort = sortName
    desc = sortParam.startsWith('-')
  } else if (sortParam) notices.push(`Groups cannot be sorted by “${sortName}” (${sorts.join(', ')}); sorted by count.`)
  const everyParam = one(sp.every)
  let every: GroupState['every'] = ''
  if (everyParam === 'hour' || everyParam === 'day') every = everyParam
  else if (everyParam) notices.push(`Groups can be split per hour or per day, not “${everyParam}”; not split.`)
  return { group: { by, sort, desc, rows: one(sp.rows) === '1', every }, notices }
}

/** The group-by page's query parameters (what differs from the defaults). */
export function groupParams(g: GroupState): Record<string, string> {
  const q: Record<string, string> = { by: g.by.join(',') }
  if (g.sort !== 'count' || !g.desc) q.gsort = `${g.desc ? '-' : ''}${g.sort}`
  if (g.rows) q.rows = '1'
  if (g.every) q.every = g.every
  return q
}

/** The URL of a group-by page: the view state's, then its own parameters. */
export function groupHref(path: string, state: ViewState, group: GroupState, changes: Partial<GroupState> = {}, viewChanges: Partial<ViewState> = {}): string {
  return `${viewHref(path, state, { offset: 0, ...viewChanges })}&${new URLSearchParams(groupParams({ ...group, ...changes }))}`
}

const GROUP_FIELDS = new Set(['by', 'gsort', 'rows', 'every'])

/**
 * The query string the Group button submits: the query form's fields as they stand (a range or
 * filter changed there but not yet run wins over the state the page was rendered with), the group
 * form's other hidden view fields the query form does not have (rows per page…; from/to only come
 * from the query form, which leaves them out for a preset range), then the group form's own fields
 * (`by`, `gsort`, `rows`, `every`).
 */
export function groupSubmitQuery(viewFields: Iterable<[string, string]>, groupFields: Iterable<[string, string]>): string {
  const view = [...viewFields].filter(([name]) => !GROUP_FIELDS.has(name))
  const group = [...groupFields]
  const owned = new Set(['from', 'to', ...view.map(([name]) => name)])
  const q = new URLSearchParams(view)
  for (const [name, value] of group) if (!GROUP_FIELDS.has(name) && !owned.has(name)) q.append(name, value)
  for (const [name, value] of group) if (GROUP_FIELDS.has(name) && !(name === 'every' && value === '')) q.append(name, value)
  return q.toString()
}
