import pkg from '@/package.json'
import { withAccess } from '@/lib/access/server'
import { databaseCheck } from '@/lib/health/service'

export const dynamic = 'force-dynamic'

// GET /query/api/health - liveness of the query application: its database, reachable and migrated
export const GET = withAccess('/query/api/health', async () => {
  const [, database] = (await databaseCheck())!
  // Unlike the API's health, the database is required here: without it no page can answer.
  const body = { status: database.status === 'ok' ? 'ok' : 'down', version: pkg.version, time: new Date().toISOString(), database }
  return Response.json(body, { status: database.status === 'ok' ? 200 : 503 })
})
