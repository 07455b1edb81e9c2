import data from '@/lib/policies/policies.json'
import { AppError } from '@/lib/errors'
import { Policy, type PolicyList } from '@/lib/policies/schemas'

// Policies are part of the release, not fetched: the data file is validated once when the module
// loads, so a malformed edit fails the unit tests and is never served.
const POLICIES: readonly Policy[] = Object.freeze(
  Policy.array()
    .refine((list) => new Set(list.map((p) => p.slug)).size === list.length, 'policy slugs must be unique')
    .parse(data)
    .sort((a, b) => a.slug.localeCompare(b.slug)),
)

export async function listPolicies(): Promise<PolicyList> {
  return { count: POLICIES.length, policies: [...POLICIES] }
}

export async function getPolicy(slug: string): Promise<Policy> {
  const policy = POLICIES.find((p) => p.slug === slug)
  if (!policy) throw new AppError('not_found', `No policy has the slug "${slug}". GET /api/policies lists them.`)
  return policy
}
