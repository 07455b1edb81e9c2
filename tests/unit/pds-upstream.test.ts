import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { AppError } from '@/lib/errors'
import { BetterStackSla, XrpcDescribeServer } from '@/lib/pds/schemas'
import { betterStackErrorMessage, reshapeDescribeServer, reshapeHealth, reshapeResolveHandle, reshapeSla, xrpcErrorOf, XrpcError } from '@/lib/pds/upstream'

const fixture = (path: string) => readFileSync(new URL(`../fixtures/${path}`, import.meta.url), 'utf8')

describe('recorded PDS payloads', () => {
  it('reshapes describeServer (missing optional fields become null/false)', () => {
    const raw = XrpcDescribeServer.parse(JSON.parse(fixture('atproto/describeServer-maitake.us-west.host.bsky.network.json')))
    expect(reshapeDescribeServer(raw)).toEqual({
      did: 'did:web:maitake.us-west.host.bsky.network',
      availableUserDomains: ['.bsky.social'],
      inviteCodeRequired: true,
      phoneVerificationRequired: false,
      blobUploadLimit: 314572800,
      links: {
        privacyPolicy: 'https://bsky.social/about/support/privacy-policy',
        termsOfService: 'https://bsky.social/about/support/tos',
      },
      contactEmail: null,
    })
  })

  it('reshapes _health, healthy and unhealthy', () => {
    expect(reshapeHealth(200, fixture('atproto/health-pds-0.2.2-beta.2.json'))).toEqual({ ok: true, version: '0.2.2-beta.2', error: null })
    expect(reshapeHealth(503, '{"version":"0.4.1","error":"Service Unavailable"}')).toEqual({ ok: false, version: '0.4.1', error: 'Service Unavailable' })
  })

  it('rejects a _health body that is not JSON', () => {
    expect(() => reshapeHealth(200, '<html>')).toThrow(/could not be used \(invalid JSON\)/)
  })

  it('reshapes resolveHandle: a DID, or null for the "unable to resolve" answers', () => {
    expect(reshapeResolveHandle(200, fixture('atproto/resolveHandle-bsky.app.json'))).toBe('did:plc:z72i7hdynmk6r22z27h6tvur')
    expect(reshapeResolveHandle(400, '{"error":"InvalidRequest","message":"Unable to resolve handle"}')).toBeNull()
    expect(reshapeResolveHandle(400, '{"error":"HandleNotFound","message":"Unable to resolve handle"}')).toBeNull()
  })

  it('keeps other resolveHandle errors as upstream failures', () => {
    const call = () => reshapeResolveHandle(400, '{"error":"InvalidRequest","message":"Error: handle must be a valid handle"}')
    expect(call).toThrow(XrpcError)
    // The client reads our words; the PDS's own (its error body) are only logged.
    expect(call).toThrow(
      expect.objectContaining({
        message: 'PDS answered HTTP 400.',
        details: expect.objectContaining({ detail: 'InvalidRequest: Error: handle must be a valid handle' }),
      }),
    )
    expect(() => reshapeResolveHandle(200, '{"handle":"x"}')).toThrow(
      expect.objectContaining({
        message: 'PDS sent a response that could not be used (unexpected shape).',
        details: expect.objectContaining({ detail: expect.stringMatching(/^at did: /) }),
      }),
    )
  })

  it('reads XRPC error bodies, and survives ones that are not JSON', () => {
    const e = xrpcErrorOf(400, '{"error":"RepoNotFound","message":"Could not find repo for DID: did:plc:x"}')
    expect([e.error, e.status, e.code]).toEqual(['RepoNotFound', 502, 'upstream_failed'])
    expect(xrpcErrorOf(404, '<h1>Not Found</h1>').error).toBe('Unknown')
  })
})

describe('recorded BetterStack payloads', () => {
  it('flattens the SLA attributes', () => {
    const sla = BetterStackSla.parse(JSON.parse(fixture('betterstack/monitor-sla-200-docs-example.json')))
    expect(reshapeSla(sla)).toEqual({ availability: 99.98, total_downtime: 600, number_of_incidents: 3, longest_incident: 300, average_incident: 200 })
  })

  it('reads the 400 message, whose `errors` is a string', () => {
    expect(betterStackErrorMessage(fixture('betterstack/monitor-sla-400-invalid-date-range-docs-example.json'))).toMatch(/^The data range is invalid\./)
    expect(betterStackErrorMessage('{"errors":["a"]}')).toBe('["a"]')
    expect(betterStackErrorMessage('oops')).toBe('BetterStack rejected the date range.')
  })

  it('errors are AppErrors', () => {
    expect(xrpcErrorOf(400, '{}')).toBeInstanceOf(AppError)
  })
})
