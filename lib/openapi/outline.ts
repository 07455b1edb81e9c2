import 'server-only'
import { tagAnchor, operationAnchor } from '@/lib/openapi/anchors'
import { getOpenApiDocument } from '@/lib/openapi/document'

// The reference's table of contents, read from the OpenAPI document in the order the interactive
// reference shows it: the docs page renders it before that reference has loaded, and the landing
// page links its groups.

export interface OutlineOperation {
  method: string
  /** Full path, `/api/ipcheck` */
  path: string
  summary: string
  anchor: string
  deprecated: boolean
  internal: boolean
}

export interface OutlineGroup {
  tag: string
  description: string
  anchor: string
  /** Common first segment of the group's paths, `/api/pds` */
  prefix: string
  operations: OutlineOperation[]
}

interface DocOperation {
  tags?: string[]
  summary?: string
  deprecated?: boolean
  'x-internal-operation'?: boolean
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch']

export function referenceOutline(doc = getOpenApiDocument()): OutlineGroup[] {
  const paths = (doc.paths ?? {}) as Record<string, Record<string, DocOperation>>
  return (doc.tags ?? []).map(({ name, description }) => {
    const operations: OutlineOperation[] = []
    for (const [path, item] of Object.entries(paths))
      for (const method of METHODS) {
        const op = item[method]
        if (!op?.tags?.includes(name)) continue
        operations.push({
          method: method.toUpperCase(),
          path: `/api${path}`,
          summary: op.summary ?? '',
          anchor: operationAnchor(name, method, path),
          deprecated: op.deprecated === true,
          internal: op['x-internal-operation'] === true,
        })
      }
    return {
      tag: name,
      description: description ?? '',
      anchor: tagAnchor(name),
      prefix: operations[0]?.path.split('/').slice(0, 3).join('/') ?? '/api',
      operations,
    }
  })
}
