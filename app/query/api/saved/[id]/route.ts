import { withAccess } from '@/lib/access/server'
import { deleteSaved, ownerOf, RenameInput, renameSaved } from '@/lib/saved-views/views'

export const dynamic = 'force-dynamic'

// PATCH /query/api/saved/{id} - rename one of your saved views {name}
export const PATCH = withAccess('/query/api/saved/{id}', { body: RenameInput }, ({ body, identity, params }) => renameSaved(ownerOf(identity), params.id, body))

// DELETE /query/api/saved/{id} - delete one of your saved views
export const DELETE = withAccess('/query/api/saved/{id}', async ({ identity, params }) => {
  await deleteSaved(ownerOf(identity), params.id)
  return new Response(null, { status: 204 })
})
