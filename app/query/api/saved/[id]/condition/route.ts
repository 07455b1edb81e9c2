import { withAccess } from '@/lib/access/server'
import { ConditionInput, ownerOf, setCondition } from '@/lib/saved-views/views'

export const dynamic = 'force-dynamic'

// PUT /query/api/saved/{id}/condition - set the alert condition of one of your saved views
// {condition: {metric, op, threshold, windowMinutes}}, or remove it {condition: null}; the alerts
// job evaluates it (lib/alerts)
export const PUT = withAccess('/query/api/saved/{id}/condition', { body: ConditionInput }, ({ body, identity, params }) =>
  setCondition(ownerOf(identity), params.id, body),
)
