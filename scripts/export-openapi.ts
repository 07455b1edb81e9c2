// Writes the OpenAPI document (as /api/openapi.json serves it) to a file or stdout, for linting
// and for reviewing API changes in a diff.
import { writeFileSync } from 'node:fs'
import { buildOpenApiDocument } from '@/lib/openapi/document'

const json = JSON.stringify(buildOpenApiDocument(), null, 2) + '\n'
const out = process.argv[2]
if (out) writeFileSync(out, json)
else process.stdout.write(json)
