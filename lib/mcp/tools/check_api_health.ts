import 'server-only'
import { HealthResult } from '@/lib/health/schemas'
import { getHealth } from '@/lib/health/service'
import { defineTool, NoArguments } from '@/lib/mcp/tool'

export const checkApiHealthTool = defineTool({
  name: 'check_api_health',
  title: 'Check the health of the API',
  description: [
    "Reports the API's health, the same answer as GET /api/health: `status` is `ok` when every dependency answered and `degraded` when one did not, with the version, the uptime and a check per dependency (the rate-limit store and its circuit breaker, the query database, the request log).",
    'Every dependency is optional: the API keeps answering while one is down. Takes no arguments; never cached.',
    'Failures: none expected. A dependency that does not answer within 1 s is reported as down instead of failing the call.',
  ].join('\n\n'),
  input: NoArguments,
  output: HealthResult,
  openWorld: false,
  run: () => getHealth(),
  summarize: (r) => {
    const down = Object.entries(r.checks).filter(([, c]) => c.status === 'down')
    const which = down.length ? ` (down: ${down.map(([name, c]) => `${name}: ${c.detail}`).join('; ')})` : ''
    return `API health status: ${r.status}${which}. Version ${r.version}, up ${r.uptimeSeconds} s.`
  },
})
