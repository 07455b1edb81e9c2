import { describe, expect, it } from 'vitest'
import { parseAddress } from '@/lib/ipcheck/address'

describe('parseAddress', () => {
  it.each([
    ['24.48.0.1', '24.48.0.1', 4],
    [' 8.8.8.8 ', '8.8.8.8', 4],
    ['2606:4700:4700::1111', '2606:4700:4700::1111', 6],
    ['2606:4700:4700:0:0:0:0:1111', '2606:4700:4700::1111', 6],
    ['::ffff:8.8.8.8', '8.8.8.8', 4],
    ['::FFFF:24.48.0.1', '24.48.0.1', 4],
    ['2002:c000:204::1', '2002:c000:204::1', 6],
  ])('accepts %j as %s (IPv%i)', (input, address, version) => {
    expect(parseAddress(input)).toEqual({ ok: true, address, version })
  })

  it.each([
    ['01.2.3.4', 'not a valid'],
    ['0x7f.1', 'not a valid'],
    ['127.1', 'not a valid'],
    ['1.2.3', 'not a valid'],
    ['256.1.1.1', 'not a valid'],
    ['1.2.3.4.5', 'not a valid'],
    ['1.2.3.4/24', 'is a range'],
    ['2001:db8::/32', 'is a range'],
    ['1.2.3.4-1.2.3.9', 'not a valid'],
    ['example.com', 'not a valid'],
    ['localhost', 'not a valid'],
    ['', 'not a valid'],
    ['fe80::1%eth0', 'zone id'],
    ['2606:4700::1111::1', 'not a valid'],
  ])('refuses %j', (input, reason) => {
    const r = parseAddress(input)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.reason).toContain(reason)
  })

  it.each([
    ['10.1.2.3', 'private address'],
    ['172.16.0.1', 'private address'],
    ['192.168.1.1', 'private address'],
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private address'],
    ['169.254.1.1', 'link-local'],
    ['fe80::1', 'link-local'],
    ['fd00::1', 'unique local'],
    ['100.64.0.1', 'carrier-grade NAT'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['192.0.2.1', 'reserved or documentation'],
    ['203.0.113.9', 'reserved or documentation'],
    ['2001:db8::1', 'reserved or documentation'],
    ['240.0.0.1', 'reserved'],
    ['64:ff9b::808:808', 'NAT64'],
  ])('answers %j locally as %s', (input, what) => {
    const r = parseAddress(input)
    expect(r.ok).toBe(false)
    if (!r.ok) {
      expect(r.reason).toContain(what)
      expect(r.reason).toContain('no public location')
    }
  })
})
