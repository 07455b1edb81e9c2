import { defineOperation } from '@/lib/http/operation'
import { HealthQuery, HealthResult } from '@/lib/health/schemas'

export const getHealthOp = defineOperation({
  method: 'GET',
  path: '/health',
  operationId: 'getHealth',
  tag: 'Health',
  summary: 'Service health',
  description:
    'Liveness and readiness. 200 whenever the service can answer API requests: status `ok`, or `degraded` when an optional dependency (the rate-limit store, the database behind the request log and the query application) is down and the service works around it. 503 while the process is shutting down (a load balancer should stop sending requests) or when a required dependency is down. `probe=live` skips the dependency checks.',
  query: HealthQuery,
  success: { description: 'The service is up', schema: HealthResult },
  examples: [{ name: 'up', summary: 'The service and its dependencies are up', varies: ['/uptimeSeconds', '/time', '/checks/database/latencyMs'] }],
  errors: ['unavailable'],
})

export const healthOperations = [getHealthOp]
