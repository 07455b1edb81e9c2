import pkg from '@/package.json'
import { withAccess } from '@/lib/access/server'
import { databaseCheck, queryReplicaCheck } from '@/lib/health/service'

export const dynamic = 'force-dynamic'

// GET /query/api/health - liveness of the query application: its database, reachable and migrated, and the replica it reads
export const GET = withAccess('/query/api/health', async () => {
  const [[, database], replica] = await Promise.all([databaseCheck().then((c) => c!), queryReplicaCheck()])
  // Unlike the API's health, the database is required here: without it no page can answer; nor can a query without the replica it reads.
  const ok = database.status === 'ok' && (!replica || replica[1].status === 'ok')
  const body = { status: ok ? 'ok' : 'down', version: pkg.version, time: new Date().toISOString(), database, ...(replica ? { replica: replica[1] } : {}) }
  return Response.json(body, { status: ok ? 200 : 503 })
})
