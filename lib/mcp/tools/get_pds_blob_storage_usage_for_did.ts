import 'server-only'
import { defineTool } from '@/lib/mcp/tool'
import { BLOB_COUNTING, describeBlobUsage } from '@/lib/mcp/tools/get_pds_blob_storage_usage'
import { BlobUsage, BlobUsageParams } from '@/lib/pds/schemas'
import { getBlobUsageForDid } from '@/lib/pds/service'

export const getPdsBlobStorageUsageForDidTool = defineTool({
  name: 'get_pds_blob_storage_usage_for_did',
  title: 'Blob storage used by one account on the PDS',
  description: [
    "Totals the blob storage (images, videos and other uploaded files) of one account on the platform's PDS, given its DID (`did:plc:` followed by 24 base32 characters, or `did:web:` and a host name): bytes and number of blobs.",
    `Limits: ${BLOB_COUNTING}`,
    'Failures: a malformed DID is refused. The call fails when the DID has no account on this PDS or the account is not active (deactivated, suspended, taken down), when this server has no PDS configured (PDS_URL), or when the PDS fails or does not answer in time.',
  ].join('\n\n'),
  input: BlobUsageParams.strict(),
  output: BlobUsage,
  openWorld: true,
  run: ({ did }) => getBlobUsageForDid(did),
  summarize: (u) => `${u.did}: ${describeBlobUsage(u)}.`,
  advice: {
    not_found: 'get_pds_repos lists the accounts on this PDS and whether each is active.',
  },
})
