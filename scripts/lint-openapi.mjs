// Exports the OpenAPI document and lints it with Redocly (rules in redocly.yaml); any error fails.
import { spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'

mkdirSync('.test-results', { recursive: true })
const file = '.test-results/openapi.json'
const env = { ...process.env, PUBLIC_BASE_URL: 'https://api.example.com', DEV_BASE_URL: 'https://dev.api.example.com' }
const run = (cmd, args) => spawnSync(cmd, args, { stdio: 'inherit', env }).status
if (run('node_modules/.bin/tsx', ['--conditions=react-server', '--tsconfig', 'tsconfig.json', 'scripts/export-openapi.ts', file]) !== 0) process.exit(1)
process.exit(run('node_modules/.bin/redocly', ['lint', file, '--config', 'redocly.yaml']) ?? 1)
