// Addresses of the reference's sections (`/api/docs#tag/ip-checker/GET/ipcheck`). The interactive
// reference is given these same functions for its slugs, so the links of the server-rendered
// outline and of the landing page land on its sections.

/** `Device OS versions` → `device-os-versions` */
export const tagSlug = (name: string) =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s+/g, '-')

/** `get`, `/ipcheck` → `GET/ipcheck` (paths as the document has them, relative to /api) */
export const operationSlug = (method: string, path: string) => `${method.toUpperCase()}${path}`

export const tagAnchor = (tag: string) => `tag/${tagSlug(tag)}`
export const operationAnchor = (tag: string, method: string, path: string) => `${tagAnchor(tag)}/${operationSlug(method, path)}`
