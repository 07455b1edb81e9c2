import 'server-only'
import { defineTool, NoArguments } from '@/lib/mcp/tool'
import { BlobUsage } from '@/lib/pds/schemas'
import { getBlobUsage } from '@/lib/pds/service'

const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB']

/** `3500` → `3500 bytes (3.4 KiB) in 3 blobs`. */
export function describeBlobUsage(u: BlobUsage): string {
  let size = u.usageBytes
  let unit = 0
  while (size >= 1024 && unit < UNITS.length - 1) {
    size /= 1024
    unit++
  }
  const human = unit === 0 ? '' : ` (${size.toFixed(1)} ${UNITS[unit]})`
  return `${u.usageBytes} bytes${human} in ${u.blobCount} blobs`
}

/** Shared by both blob tools: how the sizes are found, and the 10-minute cache. */
export const BLOB_COUNTING =
  'Sizes are summed from the blob references in the account records, and from the PDS itself for blobs no record describes; `usageBytes` is a number. Cached for 10 minutes.'

export const getPdsBlobStorageUsageTool = defineTool({
  name: 'get_pds_blob_storage_usage',
  title: 'Blob storage used on the PDS',
  description: [
    "Totals the blob storage (images, videos and other uploaded files) of every active account on the platform's PDS: bytes, number of blobs and number of accounts counted.",
    `Limits: blobs of inactive accounts cannot be listed over the public API and are not counted. ${BLOB_COUNTING} The first call reads every active account and can take a while.`,
    'Failures: the call fails when this server has no PDS configured (PDS_URL), or when the PDS fails or does not answer in time.',
  ].join('\n\n'),
  input: NoArguments,
  output: BlobUsage,
  openWorld: true,
  run: () => getBlobUsage(),
  summarize: (u) => `${describeBlobUsage(u)} across ${u.accountCount} active accounts.`,
})
