// Blob references inside records: `{ $type: 'blob', ref: { $link: cid }, mimeType, size }`.
// Legacy references (`{ cid, mimeType }`) carry no size; those blobs are sized with getBlob.

/** Collections whose lexicons hold no blobs; skipping them saves most of an account's records. */
export const BLOB_FREE_COLLECTIONS = new Set([
  'app.bsky.feed.like',
  'app.bsky.feed.repost',
  'app.bsky.feed.threadgate',
  'app.bsky.feed.postgate',
  'app.bsky.graph.follow',
  'app.bsky.graph.block',
  'app.bsky.graph.listitem',
  'app.bsky.graph.listblock',
  'chat.bsky.actor.declaration',
])

const MAX_DEPTH = 32

/** Records every sized blob reference found anywhere in `value` into `sizes` (cid → bytes). */
export function collectBlobSizes(value: unknown, sizes: Map<string, number>, depth = 0) {
  if (depth > MAX_DEPTH || typeof value !== 'object' || value === null) return
  if (Array.isArray(value)) {
    for (const item of value) collectBlobSizes(item, sizes, depth + 1)
    return
  }
  const obj = value as Record<string, unknown>
  if (obj.$type === 'blob') {
    const link = (obj.ref as { $link?: unknown } | undefined)?.$link
    if (typeof link === 'string' && typeof obj.size === 'number' && Number.isInteger(obj.size) && obj.size >= 0) sizes.set(link, obj.size)
    return
  }
  for (const child of Object.values(obj)) collectBlobSizes(child, sizes, depth + 1)
}
