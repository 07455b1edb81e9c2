import type { Metadata } from 'next'
import { GroupByForm, GroupByTable } from '@/components/query/group-by'
import { QueryPageShell } from '@/components/query/query-page-shell'
import { ErrorState } from '@/components/query/states'
import type { Identity } from '@/lib/access/policy'
import { DATASETS } from '@/lib/datasets/catalog'
import { AppError } from '@/lib/errors'
import { groupSorts, runGroupBy } from '@/lib/query/group-by'
import { queryAs } from '@/lib/saved-views/views'
import type { GroupByResult } from '@/lib/query/schemas'
import { groupParams, parseGroupState, type GroupState } from '@/lib/view/group-state'
import { parseViewState, rangeRequest, type SearchParams, type ViewState } from '@/lib/view/view-state'
import { loadPageContext } from '../page-context'

export const dynamic = 'force-dynamic'

export async function generateMetadata({ searchParams }: { searchParams: Promise<SearchParams> }): Promise<Metadata> {
  const { state } = parseViewState(await searchParams)
  return { title: { absolute: `${DATASETS[state.dataset].label} · Group by · Query application` } }
}

// GET /query/group - the rows of the range and filter grouped by one or two columns (?by=route,status),
// with count, error rate, p50/p95 or bytes per group, sortable (?gsort=-error_rate), optionally
// split per hour or day in the page's zone (?every=hour); each group links to its rows
export default async function GroupPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const ctx = await loadPageContext(searchParams)
  const { group, notices } = parseGroupState(await searchParams, ctx.state.dataset, groupSorts(DATASETS[ctx.state.dataset]))
  return (
    <QueryPageShell page="group" {...ctx} notices={[...ctx.notices, ...notices]} formHidden={groupParams(group)}>
      {ctx.access.ok ? <Groups base={ctx.base} state={ctx.state} group={group} identity={ctx.access.identity} /> : null}
    </QueryPageShell>
  )
}

// Not recorded in the run history, whose entries reopen the rows or dashboard page.
async function Groups({ base, state, group, identity }: { base: string; state: ViewState; group: GroupState; identity: Identity }) {
  let result: GroupByResult
  try {
    result = await queryAs(identity, () =>
      runGroupBy({
        ...rangeRequest(state),
        by: group.by,
        sort: group.sort,
        order: group.desc ? 'desc' : 'asc',
        rows: group.rows,
        // Per period: in the page's zone, and as many (period, group) rows as the API allows.
        ...(group.every ? { every: group.every, timeZone: state.tz, limit: 200 } : {}),
      }),
    )
  } catch (error) {
    if (!(error instanceof AppError)) throw error
    return (
      <>
        <GroupByForm path={`${base}/group`} state={state} group={group} />
        <ErrorState title="The grouping was not run" message={error.message} />
      </>
    )
  }
  return (
    <>
      <GroupByForm path={`${base}/group`} state={state} group={group} />
      <GroupByTable result={result} base={base} state={state} group={group} />
    </>
  )
}
