import { defineOperation } from '@/lib/http/operation'
import { HealthResult } from '@/lib/health/schemas'

export const getHealthOp = defineOperation({
  method: 'GET',
  path: '/health',
  operationId: 'getHealth',
  tag: 'Health',
  summary: 'Service health',
  description: 'Liveness and dependency checks. 200 when the service can serve requests (status `ok`, or `degraded` when an optional dependency such as the rate-limit store is down and the service fails open); 503 when a required dependency is down.',
  success: { description: 'The service is up', schema: HealthResult },
  examples: [{ name: 'up', summary: 'The service and its dependencies are up', varies: ['/uptimeSeconds', '/time', '/checks/database/latencyMs'] }],
  errors: ['not_configured'],
})

export const healthOperations = [getHealthOp]
