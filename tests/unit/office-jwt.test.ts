import { randomBytes } from 'node:crypto'
import { decodeProtectedHeader, jwtVerify } from 'jose'
import { describe, expect, it } from 'vitest'
import { parseAdminKey, signGhostAdminToken } from '@/lib/office/upstream'

const newKey = () => `${randomBytes(12).toString('hex')}:${randomBytes(32).toString('hex')}`

describe('Ghost Admin API token', () => {
  it('is HS256 over the hex-decoded secret, with kid, aud /admin/ and a five-minute life', async () => {
    const raw = newKey()
    const [id, hex] = raw.split(':')
    const token = await signGhostAdminToken(parseAdminKey(raw)!)
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'HS256', typ: 'JWT', kid: id })
    const { payload } = await jwtVerify(token, Buffer.from(hex, 'hex'), { audience: '/admin/', algorithms: ['HS256'] })
    expect(payload.exp! - payload.iat!).toBe(300)
    expect(Math.abs(payload.iat! - Date.now() / 1000)).toBeLessThan(60)
  })

  it('does not verify with the hex string itself as the secret', async () => {
    const raw = newKey()
    const token = await signGhostAdminToken(parseAdminKey(raw)!)
    await expect(jwtVerify(token, new TextEncoder().encode(raw.split(':')[1]))).rejects.toThrow()
  })

  it('refuses keys not of the form {id}:{hex secret}', () => {
    for (const bad of [undefined, '', 'abc', 'abc:', ':abcd', 'abc:xyz0', 'abc:abc', 'a:b:c']) expect(parseAdminKey(bad), String(bad)).toBeNull()
    expect(parseAdminKey(' 6489ab:' + 'ab'.repeat(32) + ' ')?.id).toBe('6489ab')
  })
})
