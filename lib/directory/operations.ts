import { defineOperation } from '@/lib/http/operation'
import { ConvertIdBatchBody, ConvertIdBatchResult, ConvertIdParams, ConvertIdResult, TenantInfo, TenantInfoQuery } from '@/lib/directory/schemas'

export const convertIdOp = defineOperation({
  method: 'GET',
  path: '/directory/convertid/{id}',
  operationId: 'convertDirectoryId',
  tag: 'Directory',
  summary: 'Convert an Entra object ID to its SID, or a SID to its object ID',
  description:
    'The direction is chosen from the input: a GUID becomes `S-1-12-1-a-b-c-d`, such a SID becomes the GUID. An invalid ID is a 400 saying what is wrong.',
  params: ConvertIdParams,
  success: { description: 'The converted ID', schema: ConvertIdResult },
  examples: [
    { name: 'objectId', summary: 'An object ID to its SID', params: { id: '73d664e4-0886-4a73-b745-c694da45ddb4' } },
    { name: 'sid', summary: 'A SID to its object ID', params: { id: 'S-1-12-1-1943430372-1249052806-2496021943-3034400218' } },
    { name: 'invalid', summary: 'Neither an object ID nor a SID', params: { id: 'not-an-id' } },
  ],
  cacheControl: 'public, max-age=86400, immutable',
})

export const convertIdsOp = defineOperation({
  method: 'POST',
  path: '/directory/convertid',
  operationId: 'convertDirectoryIds',
  tag: 'Directory',
  summary: 'Convert up to 100 object IDs and SIDs at once',
  description: 'Each item is converted independently: an invalid item gets its own `error` and the valid ones are still converted.',
  body: ConvertIdBatchBody,
  success: { description: 'Per-item results, in input order', schema: ConvertIdBatchResult },
  examples: [
    {
      name: 'mixed',
      summary: 'An object ID, a SID and an invalid item',
      body: { ids: ['73d664e4-0886-4a73-b745-c694da45ddb4', 'S-1-12-1-1943430372-1249052806-2496021943-3034400218', 'not-an-id'] },
    },
    { name: 'empty', summary: 'No IDs', body: { ids: [] } },
  ],
})

export const tenantInfoOp = defineOperation({
  method: 'GET',
  path: '/directory/tenantinfo',
  operationId: 'getTenantInfo',
  tag: 'Directory',
  summary: 'Public information about a Microsoft Entra tenant',
  description: [
    'Looks a tenant up by `tenantId` or by `domainName` (exactly one; otherwise 400) and answers 404 when Microsoft knows no such tenant. Every value comes from a public source:',
    '',
    '- OpenID discovery: `tenantId`, `tenantRegion`.',
    '- User realm and credential type of the queried domain: `federationBrandName`, `bannerLogo`, `desktopSsoEnabled`, `tenantIsUnmanaged`, `verifiedEmailSignUpDisallowed`. Microsoft throttles the credential-type lookup; a throttled answer is an error (with `Retry-After`), never guessed flags.',
    "- Microsoft Graph `findTenantInformationByTenantId`, only when the service has Graph credentials: `tenantDisplayName`, `defaultDomainName`. Without them `tenantDisplayName` is null and `defaultDomainName` holds the tenant's initial `*.onmicrosoft.com` domain when it was observed, else the queried domain, else an empty string. A `tenantId` lookup without Graph has no domain to query, so only the OpenID fields are known (booleans false, lists empty).",
    '- DNS through a validating resolver: MX records and `emailConfiguration` for each analysed domain (`exoSmtpDaneDnsSecEnabled`: an Exchange Online `*.mx.microsoft` MX host with a DNSSEC-validated TLSA record), `tenantUsesExo` (an MX host in Exchange Online), and `spoDomains` (`{prefix}.sharepoint.com` and `{prefix}-my.sharepoint.com` that resolve).',
    '',
    "**Domain lists are partial by necessity.** Since 2025 Microsoft's autodiscover service returns only the domain asked about, and no other public source lists a tenant's domains. `verifiedDomains` therefore counts the domains observed to belong to the tenant (the queried domain, Graph's default domain, and the initial `*.onmicrosoft.com` domain when a Microsoft 365 DKIM CNAME names it and OpenID discovery confirms it is the same tenant), and `additionalDomains` lists those other than the queried one. A tenant may have many more.",
    '',
    '`customDomainsOnly=true` leaves provider-suffix domains (`*.onmicrosoft.com`…) out of the email analysis; `skipEmailConfig=true` skips MX and TLSA lookups and answers `mxRecords` and `emailConfiguration` as empty arrays. `discovery` (beyond the specified fields) says which sources answered. Answers from Microsoft are cached for an hour (Graph: six hours), DNS for a minute.',
  ].join('\n'),
  query: TenantInfoQuery,
  success: { description: 'The tenant information', schema: TenantInfo },
  examples: [
    { name: 'byDomain', summary: 'A tenant by one of its domains', query: { domainName: 'contoso.com' } },
    { name: 'byTenantId', summary: 'A tenant by its id', query: { tenantId: '6babcaad-604b-40ac-a9d7-9fd97c0b779f' } },
    { name: 'neither', summary: 'Neither tenantId nor domainName' },
    { name: 'unknownTenant', summary: 'A domain no tenant uses', query: { domainName: 'xyz.com' } },
  ],
  errors: ['not_found', 'upstream_failed', 'upstream_timeout'],
  errorFormat: 'successFalse',
  cacheControl: 'public, max-age=300',
})

export const directoryOperations = [convertIdOp, convertIdsOp, tenantInfoOp]
