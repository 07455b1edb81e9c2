import { request } from 'node:http'

// fetch() sets Host itself; tests of host-based routing (QUERY_APP_HOST) need to choose it.
export interface RawResponse {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

export function rawRequest(url: string, opts: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: opts.method ?? 'GET', headers: opts.headers }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }))
    })
    req.on('error', reject)
    req.end(opts.body)
  })
}
