// `npm run openapi:examples`: records the OpenAPI document's examples (see openapi-examples/record.ts)
// into lib/openapi/examples.json. Run it after changing an operation, its examples or its mapping;
// tests/integration/openapi-examples.test.ts fails while the file is stale.
import { writeFileSync } from 'node:fs'
import { EXAMPLES_FILE, recordExamples } from './openapi-examples/record'

async function main() {
  const recorded = await recordExamples()
  writeFileSync(EXAMPLES_FILE, JSON.stringify(recorded, null, 2) + '\n')
  const count = Object.values(recorded.operations).reduce((n, answers) => n + Object.keys(answers).length, Object.keys(recorded.mcp).length)
  console.log(`recorded ${count} examples into ${EXAMPLES_FILE}`)
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    process.exit(1)
  },
)
