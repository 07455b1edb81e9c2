import { defineOperation } from '@/lib/http/operation'
import { Policy, PolicyList, PolicyParams } from '@/lib/policies/schemas'

const CACHE_CONTROL = 'public, max-age=3600'

export const listPoliciesOp = defineOperation({
  method: 'GET',
  path: '/policies',
  operationId: 'listPolicies',
  tag: 'Policies',
  summary: 'The policies applied across the platform',
  description: 'Each policy with its category, version, the date it took effect and where its full text is published.',
  success: { description: 'Every policy', schema: PolicyList },
  examples: [{ name: 'all', summary: 'Every policy' }],
  cacheControl: CACHE_CONTROL,
})

export const listPoliciesLegacyOp = defineOperation({
  method: 'GET',
  path: '/policies/getAllPolicies',
  operationId: 'getAllPolicies',
  deprecated: true,
  tag: 'Policies',
  summary: 'All policies (older path; use /policies)',
  description: '**Deprecated** alias of `GET /policies`, kept for existing clients. Same answer.',
  success: { description: 'Every policy', schema: PolicyList },
  examples: [{ name: 'all', summary: 'Every policy' }],
  cacheControl: CACHE_CONTROL,
})

export const getPolicyOp = defineOperation({
  method: 'GET',
  path: '/policies/{slug}',
  operationId: 'getPolicy',
  tag: 'Policies',
  summary: 'One policy by slug',
  params: PolicyParams,
  success: { description: 'The policy', schema: Policy },
  examples: [
    { name: 'privacy', summary: 'The privacy policy', params: { slug: 'privacy-policy' } },
    { name: 'notFound', summary: 'No policy has this slug', params: { slug: 'refund-policy' } },
  ],
  errors: ['not_found'],
  cacheControl: CACHE_CONTROL,
})

export const policyOperations = [listPoliciesOp, getPolicyOp, listPoliciesLegacyOp]
