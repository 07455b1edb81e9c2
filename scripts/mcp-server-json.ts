// Writes server.json, the MCP Registry entry of the tool server, from the tool registry
// (lib/mcp/card.ts). The committed file describes the documentation host https://api.example.com;
// an operator publishing an instance runs it with that instance's address:
//   npx tsx --conditions=react-server --tsconfig tsconfig.json scripts/mcp-server-json.ts [https://api.your.host]
// tests/integration/mcp-2026.test.ts fails when the committed file no longer matches the tools.
import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { serverJson } from '@/lib/mcp/card'

export const SERVER_JSON_BASE_URL = 'https://api.example.com'

const file = path.join(process.cwd(), 'server.json')
writeFileSync(file, `${JSON.stringify(serverJson(process.argv[2] ?? SERVER_JSON_BASE_URL), null, 2)}\n`)
console.log(`wrote ${file}`)
