import 'server-only'
import { defineTool } from '@/lib/mcp/tool'
import { HandleAvailability, VerifyHandleQuery } from '@/lib/pds/schemas'
import { verifyHandle } from '@/lib/pds/service'

export const verifyPdsHandleAvailabilityTool = defineTool({
  name: 'verify_pds_handle_availability',
  title: 'Check whether a handle is available on the PDS',
  description: [
    "Checks whether a Bluesky handle (such as `alice.bsky.social`, without `@`) can still be registered on the platform's PDS: first the atproto handle syntax (compared in lower case), then the PDS's own rules for its user domains (a single name of 3-18 characters, not reserved), then whether the handle already resolves to an account.",
    'Returns `available`, a `reason` when it is not, the DID the handle resolves to, and `verified`: whether that DID document lists the handle back (null when it cannot be told).',
    'Limits: the PDS applies further checks at sign-up (its full reserved list, a content filter), so `available: true` is not a guarantee.',
    'Failures: a malformed handle, or one that breaks a length rule of the service domain, fails with the rule it breaks. The call also fails when this server has no PDS configured (PDS_URL) or the PDS fails or does not answer in time.',
  ].join('\n\n'),
  input: VerifyHandleQuery,
  output: HandleAvailability,
  openWorld: true,
  run: (args) => verifyHandle(args.handle),
  summarize: (r) => (r.available ? `Handle '${r.handle}' is available for registration.` : `Handle '${r.handle}' is not available: ${r.reason}.`),
  advice: {
    invalid_input: 'Change the handle to a full domain name such as alice.bsky.social (no "@") that follows that rule, then call again.',
  },
})
