import { describe, expect, it } from 'vitest'
import { loadConfig } from '@/lib/config'
import { allowedMcpOrigins, isAllowedMcpOrigin, mcpCorsOrigin } from '@/lib/mcp/origin'

// Which browser origins may call /api/mcp (DNS-rebinding protection); the integration tests run the
// same rules through the built server.

const c = loadConfig({
  PUBLIC_BASE_URL: 'https://api.example.com/',
  DEV_BASE_URL: 'https://dev.api.example.com:8443/base',
  MCP_ALLOWED_ORIGINS: 'https://console.example, http://localhost:6274',
})

describe('allowed MCP origins', () => {
  it('are the public and development origins plus MCP_ALLOWED_ORIGINS, as origins', () => {
    expect([...allowedMcpOrigins(c)]).toEqual([
      'https://api.example.com',
      'https://dev.api.example.com:8443',
      'https://console.example',
      'http://localhost:6274',
    ])
  })

  it.each([
    [null, 'api.example.com', true],
    ['https://api.example.com', 'internal-host:3000', true],
    ['https://API.example.com:443', 'api.example.com', true],
    ['https://dev.api.example.com:8443', 'api.example.com', true],
    ['http://localhost:6274', 'api.example.com', true],
    ['http://localhost:3000', 'localhost:3000', true],
    ['http://127.0.0.1:3000', '127.0.0.1:3000', true],
    // The loopback names are one host: a page at localhost may call the server reached as 127.0.0.1.
    ['http://localhost:3999', '127.0.0.1:3999', true],
    ['http://127.0.0.1:3999', 'localhost:3999', true],
    ['http://[::1]:3999', 'localhost:3999', true],
    ['http://localhost:3999', '127.0.0.1:4000', false],
    ['http://localhost:3999', 'rebound.example:3999', false],
    ['http://[::1]:3000', '[::1]:3000', true],
    ['http://api.example.com', 'api.example.com', false],
    ['https://evil.example', 'api.example.com', false],
    ['http://evil.example.com', 'evil.example.com', false],
    ['http://localhost:3001', 'localhost:3000', false],
    ['http://localhost:3000', null, false],
    ['null', 'api.example.com', false],
    ['not an origin', 'api.example.com', false],
  ])('Origin %s with Host %s → %s', (origin, host, allowed) => {
    expect(isAllowedMcpOrigin(origin, host, c)).toBe(allowed)
  })

  it('grants CORS only to a browser origin that may call', () => {
    const headers = (h: Record<string, string>) => new Headers(h)
    expect(mcpCorsOrigin(headers({ origin: 'https://console.example', host: 'api.example.com' }), c)).toBe('https://console.example')
    expect(mcpCorsOrigin(headers({ origin: 'https://evil.example', host: 'api.example.com' }), c)).toBeNull()
    expect(mcpCorsOrigin(headers({ host: 'api.example.com' }), c)).toBeNull()
  })

  it('refuses a setting that is not a list of http(s) origins, naming the variable', () => {
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'console.example' })).toThrow(/MCP_ALLOWED_ORIGINS/)
    expect(() => loadConfig({ MCP_ALLOWED_ORIGINS: 'ftp://files.example' })).toThrow(/MCP_ALLOWED_ORIGINS/)
  })
})
