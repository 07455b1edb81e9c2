import { withAccess } from '@/lib/access/server'
import { listSaved, ownerOf, saveView, SaveViewInput } from '@/lib/saved-views/views'

export const dynamic = 'force-dynamic'

// GET /query/api/saved - your saved views, the most recently changed first
export const GET = withAccess('/query/api/saved', async ({ identity }) => ({ saved: await listSaved(ownerOf(identity)) }))

// POST /query/api/saved - save a view {name, page, view} (the same name again replaces it)
export const POST = withAccess('/query/api/saved', { body: SaveViewInput }, async ({ body, identity }) =>
  Response.json(await saveView(ownerOf(identity), body), { status: 201 }),
)
