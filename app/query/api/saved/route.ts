import { withAccess } from '@/lib/access/server'
import { readJson } from '@/lib/http/route'
import { listSaved, ownerOf, saveView, type SaveViewInput } from '@/lib/query/saved'

export const dynamic = 'force-dynamic'

// GET /query/api/saved - your saved views, the most recently changed first
export const GET = withAccess('/query/api/saved', async ({ identity }) => ({ saved: await listSaved(ownerOf(identity)) }))

// POST /query/api/saved - save a view {name, page, view} (the same name again replaces it)
export const POST = withAccess('/query/api/saved', async ({ request, identity }) => Response.json(await saveView(ownerOf(identity), (await readJson(request)) as SaveViewInput), { status: 201 }))
