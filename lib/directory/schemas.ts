import { z } from 'zod'
import { Support } from '@/lib/support'
import { queryBoolean } from '@/lib/http/query'

export const ConvertDirection = z.enum(['objectIdToSid', 'sidToObjectId'])

export const ConvertIdParams = z.object({
  id: z
    .string()
    .min(1)
    .max(200)
    .meta({
      description: 'An Entra object ID (GUID) or its SID (`S-1-12-1-a-b-c-d`)',
      examples: ['e06e3596-82c0-4f31-ac5a-439a308e3dc2'],
    }),
})

export const ConvertIdResult = z
  .object({
    originalId: z.string(),
    returnId: z.string(),
    convertDirection: ConvertDirection,
    support: Support,
  })
  .meta({ id: 'ConvertIdResult' })
export type ConvertIdResult = z.infer<typeof ConvertIdResult>

export const ConvertIdBatchBody = z
  .object({
    ids: z.array(z.string().max(200)).min(1).max(100).meta({ description: 'Object IDs and/or SIDs, at most 100' }),
  })
  .strict()
  .meta({ id: 'ConvertIdBatchRequest' })

export const ConvertIdBatchItem = z
  .object({
    originalId: z.string(),
    returnId: z.string().nullable(),
    convertDirection: ConvertDirection.nullable(),
    error: z.string().nullable().meta({ description: 'Why this id could not be converted; null on success' }),
  })
  .meta({ id: 'ConvertIdBatchItem' })

export const ConvertIdBatchResult = z.object({ results: z.array(ConvertIdBatchItem), support: Support }).meta({ id: 'ConvertIdBatchResult' })
export type ConvertIdBatchResult = z.infer<typeof ConvertIdBatchResult>

// ---------------------------------------------------------------------------------------------
// Tenant information (GET /api/directory/tenantinfo)

// Spelled out in both cases (no /i flag) because the pattern is also published in OpenAPI.
const DOMAIN_NAME = /^(?=.{1,253}\.?$)(?:(?!-)[A-Za-z0-9-]{1,63}(?<!-)\.)+(?:[A-Za-z]{2,63}|[Xx][Nn]--[A-Za-z0-9-]{1,59})\.?$/

export const TenantInfoQuery = z
  .object({
    tenantId: z
      .guid()
      .optional()
      .meta({
        description: 'Tenant identifier (GUID). Supply exactly one of `tenantId` or `domainName`.',
        examples: ['6babcaad-604b-40ac-a9d7-9fd97c0b779f'],
      }),
    tenantID: z.guid().optional().meta({
      description: 'Legacy casing of `tenantId`, accepted for existing clients. Counts as `tenantId` for the exactly-one rule.',
      deprecated: true,
    }),
    domainName: z
      .string()
      .max(254)
      .regex(DOMAIN_NAME, 'must be a domain name such as contoso.com')
      .optional()
      .meta({
        description: 'A domain name registered in the tenant. Supply exactly one of `tenantId` or `domainName`.',
        examples: ['contoso.com'],
      }),
    customDomainsOnly: queryBoolean(
      'When true, only custom domains (not `*.onmicrosoft.com` and other provider-suffix domains) are analysed for email configuration',
    ).default(false),
    skipEmailConfig: queryBoolean('When true, MX record and email configuration lookups are skipped (`mxRecords` and `emailConfiguration` are empty)').default(
      false,
    ),
  })
  .strict()
  .superRefine((q, ctx) => {
    const given = [q.tenantId, q.tenantID, q.domainName].filter((v) => v !== undefined).length
    if (given !== 1)
      ctx.addIssue({
        code: 'custom',
        message: `supply exactly one of tenantId or domainName (${given === 0 ? 'got neither' : 'got more than one'})`,
      })
  })
export type TenantInfoQuery = z.infer<typeof TenantInfoQuery>

export const EmailConfiguration = z
  .object({
    domain: z.string(),
    mxRecords: z.array(z.string()).meta({ description: 'MX hosts of the domain, by preference (a null MX `0 .` is left out)' }),
    exoSmtpDaneDnsSecEnabled: z.boolean().meta({
      description: 'An MX host is an Exchange Online DANE host (`*.mx.microsoft`) and its TLSA record `_25._tcp.{mx}` validated with DNSSEC',
    }),
  })
  .meta({ id: 'TenantEmailConfiguration' })

export const DefaultDomainSource = z.enum(['graph', 'initial_domain', 'queried_domain', 'unknown'])

export const TenantDiscovery = z
  .object({
    queriedDomain: z.string().nullable().meta({
      description:
        'The domain whose sign-in and DNS data were read: `domainName`, or for a `tenantId` lookup the default domain from Graph; null when there is none',
    }),
    initialDomain: z.string().nullable().meta({
      description:
        "The tenant's initial `*.onmicrosoft.com` domain, when observed (Graph, the queried domain itself, or a Microsoft 365 DKIM CNAME target) and confirmed to belong to the same tenant",
    }),
    namespaceType: z
      .enum(['Managed', 'Federated', 'Unknown'])
      .nullable()
      .meta({ description: 'Sign-in namespace type of the queried domain (user realm); null when no domain was queried' }),
    cloudInstance: z.string().nullable().meta({ description: 'Cloud instance from OpenID discovery, e.g. `microsoftonline.com`' }),
    tenantRegionSubScope: z
      .string()
      .nullable()
      .meta({ description: 'Region sub-scope from OpenID discovery (`GCC`, `DOD`, … in government clouds); null elsewhere' }),
    defaultDomainNameSource: DefaultDomainSource.meta({ description: 'Where `defaultDomainName` came from' }),
    sources: z.object({
      graph: z
        .enum(['used', 'not_configured', 'not_found', 'failed'])
        .meta({ description: 'Microsoft Graph tenant lookup: `not_configured` without client credentials' }),
      signIn: z.enum(['used', 'no_domain']).meta({ description: 'User realm and credential-type lookups; `no_domain` when no domain was known to query' }),
      email: z.enum(['used', 'skipped', 'no_domain']).meta({ description: 'MX/TLSA lookups; `skipped` with `skipEmailConfig=true`' }),
    }),
  })
  .meta({
    id: 'TenantDiscovery',
    description: 'Beyond the specified fields: what was looked up and where values came from, so unknowns are not mistaken for facts',
  })

export const TenantInfo = z
  .object({
    tenantId: z.string().meta({ description: 'Tenant GUID from the OpenID discovery issuer', examples: ['6babcaad-604b-40ac-a9d7-9fd97c0b779f'] }),
    federationBrandName: z.string().nullable().meta({ description: 'Brand name from the user realm (or Graph); null when none is published' }),
    tenantDisplayName: z.string().nullable().meta({ description: 'Display name from Microsoft Graph; null when Graph is not configured or has no answer' }),
    defaultDomainName: z.string().meta({
      description:
        'Default domain from Microsoft Graph. Without Graph: the initial `*.onmicrosoft.com` domain when observed, else the queried domain, else an empty string (a `tenantId` lookup). See `discovery.defaultDomainNameSource`.',
    }),
    bannerLogo: z.string().nullable().meta({ description: 'URL of the sign-in page banner logo (company branding); null when none' }),
    tenantRegion: z.string().nullable().meta({ description: 'Region scope from OpenID discovery: `WW`, `NA`, `EU`, `AS`, `OC`, `AF`, `SA`, `USGov`…' }),
    desktopSsoEnabled: z.boolean().meta({ description: 'Seamless (desktop) SSO enabled; false when not reported' }),
    verifiedEmailSignUpDisallowed: z.boolean().meta({ description: 'Self-service (email-verified) sign-up is disallowed' }),
    tenantIsUnmanaged: z.boolean().meta({ description: 'Unmanaged ("viral") tenant created by self-service sign-up' }),
    tenantLeaveUrl: z.url().meta({
      description:
        'My Account organisations page for this tenant, where a guest can leave it: `https://myaccount.microsoft.com/organizations?tenantId={tenantId}`',
    }),
    tenantUsesExo: z.boolean().meta({
      description:
        'An analysed domain has MX records pointing to Exchange Online (`*.mail.protection.outlook.com`, `*.mx.microsoft`, `*.protection.office365.us`); false when email lookups were skipped',
    }),
    mxRecords: z.array(z.string()).meta({ description: 'MX hosts of every analysed domain, deduplicated; empty with `skipEmailConfig=true`' }),
    emailConfiguration: z.array(EmailConfiguration).meta({ description: 'Per analysed domain; empty with `skipEmailConfig=true`' }),
    tenantUsesSpo: z.boolean().meta({ description: 'A SharePoint Online host of the tenant resolves' }),
    spoDomains: z
      .array(z.string())
      .meta({ description: '`{label}.sharepoint.com` and `{label}-my.sharepoint.com` that resolve, `label` being the initial-domain prefix' }),
    verifiedDomains: z
      .number()
      .int()
      .meta({ description: 'How many of the tenant’s domains were observed (not the tenant’s total; see the operation description)' }),
    additionalDomains: z.array(z.string()).meta({ description: 'Observed domains of the tenant other than the queried one (see the operation description)' }),
    discovery: TenantDiscovery,
  })
  .meta({ id: 'TenantInfo' })
export type TenantInfo = z.infer<typeof TenantInfo>

// Upstream payloads (Microsoft login endpoints and Graph). Only the fields we read; the rest pass.

export const OpenIdConfigurationPayload = z.object({
  issuer: z.string(),
  tenant_region_scope: z.string().nullish(),
  tenant_region_sub_scope: z.string().nullish(),
  cloud_instance_name: z.string().nullish(),
})

export const MicrosoftIdentityErrorPayload = z.object({
  error: z.string(),
  error_description: z.string().optional(),
  error_codes: z.array(z.number()).optional(),
})

export const UserRealmPayload = z.object({
  NameSpaceType: z.string(),
  DomainName: z.string().nullish(),
  FederationBrandName: z.string().nullish(),
  CloudInstanceName: z.string().nullish(),
  AuthURL: z.string().nullish(),
})

export const CredentialTypePayload = z.object({
  IfExistsResult: z.number().optional(),
  IsUnmanaged: z.boolean().optional(),
  ThrottleStatus: z.number().optional(),
  IsSignupDisallowed: z.boolean().optional(),
  EstsProperties: z
    .object({
      UserTenantBranding: z.array(z.object({ BannerLogo: z.string().nullish() })).nullish(),
      DesktopSsoEnabled: z.boolean().nullish(),
      DomainType: z.number().nullish(),
    })
    .nullish(),
})

export const GraphTokenPayload = z.object({
  access_token: z.string().min(1),
  expires_in: z.coerce.number().int().positive(),
})

export const GraphTenantInformationPayload = z.object({
  tenantId: z.string(),
  displayName: z.string().nullish(),
  defaultDomainName: z.string().nullish(),
  federationBrandName: z.string().nullish(),
})

export const GraphErrorPayload = z.object({
  error: z.object({ code: z.string(), message: z.string().optional() }),
})
