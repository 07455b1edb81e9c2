import { config } from '@/lib/config'
import { localOperatorState } from '@/lib/access/local-operator'
import type { AccessResult } from '@/lib/access/policy'
import { ERROR_STATUS } from '@/lib/errors'
import { log } from '@/lib/log'

// What a refused visitor reads: what happened and what to do next, the same words whether the
// proxy refuses (lib/gate/query.ts, a small HTML page) or a page's own check does.

type Denial = Extract<AccessResult, { ok: false }>
/** A refusal the visitor reads: the access policy's, or the query gate's rate limit. */
export type RefusalCode = Denial['code'] | 'rate_limited'

export interface Refusal {
  title: string
  /** What happened: the policy's short reason, in context. */
  what: string
  /** What to do next. */
  next: string
}

/** The shape of the link the start-up lines printed, on this start's own address and port. */
function queryLinkShape(): string {
  const origin = localOperatorState()?.origin
  return origin ? `${origin}/query?key=…` : '/query?key=…'
}

export function describeRefusal(denial: { code: RefusalCode; reason: string }): Refusal {
  const ask = `ask the people who run this application (${config.SUPPORT_EMAIL})`
  switch (denial.code) {
    case 'unauthorized':
      if (/local operator key/i.test(denial.reason))
        return {
          title: 'Open the link from the start-up lines',
          what: `${denial.reason} Without access settings the query application is open to the person at this machine, in a browser that opened the link the server printed when it started.`,
          next: `Open the “query” link printed by npm start (${queryLinkShape()}) in this browser. The key changes at every start: after a restart, open the new link.`,
        }
      return {
        title: 'Sign-in needed',
        what: `${denial.reason} This application is only open to people signed in through the organisation’s access proxy, and this request came without a sign-in.`,
        next: `Open the application from its usual address so that the sign-in page can run, then try again. If you are signed in and still see this, ${ask}.`,
      }
    case 'forbidden':
      return {
        title: 'Access refused',
        what: denial.reason,
        next: /expired/i.test(denial.reason)
          ? 'Your sign-in has expired: reload the page from the application’s usual address to sign in again.'
          : /loopback/i.test(denial.reason)
            ? 'Without access settings the application only answers the person at this machine: open the “query” link that npm start printed, directly (not through a proxy or another address), or configure the access policy (docs/query.md, “Access policy”).'
            : `Sign in again with the account that should have access. If you should be allowed in, ${ask} and quote the request id below.`,
      }
    case 'not_configured':
      if (/listens on a public address/i.test(denial.reason))
        return {
          title: 'Not set up yet',
          what: denial.reason,
          next: 'To use the query application at this machine without access settings, start the server on a loopback address (HOST=127.0.0.1, the default of npm start) and open the link it prints. To serve it to others, configure the access policy (docs/query.md, “Access policy”).',
        }
      return {
        title: 'Not set up yet',
        what: denial.reason,
        next: `Nothing in the browser can fix this: the access settings must be completed where the application is deployed. Please ${ask}.`,
      }
    case 'upstream_failed':
      return {
        title: 'Sign-in could not be checked',
        what: denial.reason,
        next: `Try again in a minute. If it keeps happening, ${ask} and quote the request id below.`,
      }
    case 'rate_limited':
      return {
        title: 'Too many requests',
        what: denial.reason,
        next: `Wait the time it names, then reload the page. If a script or several open tabs are making the requests, stop them first; if you need a higher limit, ${ask}.`,
      }
  }
}

export function logDenial(requestId: string, path: string, method: string, denial: Pick<Denial, 'code' | 'why'>) {
  log.warn('query access refused', { requestId, method, path, status: ERROR_STATUS[denial.code], why: denial.why })
}
