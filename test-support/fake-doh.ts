import * as dnsPacket from 'dns-packet'
import { startFakeUpstream, type FakeUpstream } from './fake-upstream'

// A DNS-over-HTTPS endpoint (RFC 8484 wire format, POST or GET ?dns=) on loopback that answers
// from zone data kept in fixtures, the way a validating recursive resolver would:
//   - NXDOMAIN when neither the name nor anything below it exists; NOERROR/NODATA otherwise;
//   - CNAMEs followed (the chain is included in the answer);
//   - the AD flag set when every name in the answer is under a `secure` zone;
//   - SERVFAIL for names listed in `servfail`.

export type ZoneRecord =
  | { type: 'A' | 'AAAA' | 'CNAME' | 'NS' | 'PTR'; data: string; ttl?: number }
  | { type: 'MX'; data: { preference: number; exchange: string }; ttl?: number }
  | { type: 'TXT'; data: string | string[]; ttl?: number }
  | { type: 'CAA'; data: { flags: number; tag: string; value: string }; ttl?: number }
  | { type: 'TLSA'; data: { usage: number; selector: number; matchingType: number; certificate: string }; ttl?: number }

export interface Zone {
  /** Fully qualified names (no trailing dot) → records. */
  records: Record<string, ZoneRecord[]>
  /** Zone apexes whose answers validate (AD flag). */
  secure?: string[]
  servfail?: string[]
}

const norm = (s: string) => s.replace(/\.$/, '').toLowerCase()
const under = (name: string, apex: string) => name === apex || name.endsWith(`.${apex}`)

function toAnswer(name: string, r: ZoneRecord): dnsPacket.Answer {
  let data: unknown = r.data
  if (r.type === 'TXT') data = (Array.isArray(r.data) ? r.data : [r.data]).map((s) => Buffer.from(s))
  if (r.type === 'TLSA') data = { ...r.data, certificate: Buffer.from(r.data.certificate, 'hex') }
  return { name, type: r.type, class: 'IN', ttl: r.ttl ?? 300, data } as dnsPacket.Answer
}

export function answerQuery(zone: Zone, query: dnsPacket.DecodedPacket): Buffer {
  const q = query.questions?.[0]
  const base = { type: 'response' as const, id: query.id ?? 0, questions: query.questions ?? [] }
  const flags = (rcode: number, ad: boolean) => dnsPacket.RECURSION_DESIRED | (1 << 7) | (ad ? dnsPacket.AUTHENTIC_DATA : 0) | rcode
  if (!q) return dnsPacket.encode({ ...base, flags: flags(1, false) })
  const records = Object.fromEntries(Object.entries(zone.records).map(([k, v]) => [norm(k), v]))
  let name = norm(q.name)
  if ((zone.servfail ?? []).map(norm).includes(name)) return dnsPacket.encode({ ...base, flags: flags(2, false) })
  const answers: dnsPacket.Answer[] = []
  const names: string[] = [name]
  for (let hops = 0; hops < 8; hops++) {
    const here = records[name] ?? []
    const cname = here.find((r) => r.type === 'CNAME')
    if (cname && q.type !== 'CNAME') {
      answers.push(toAnswer(name, cname))
      name = norm(cname.data as string)
      names.push(name)
      continue
    }
    answers.push(...here.filter((r) => r.type === q.type).map((r) => toAnswer(name, r)))
    break
  }
  const exists = (n: string) => Object.keys(records).some((k) => under(k, n))
  const nx = !exists(norm(q.name))
  const secure = (zone.secure ?? []).map(norm)
  const ad = !nx && names.every((n) => secure.some((apex) => under(n, apex)))
  return dnsPacket.encode({ ...base, flags: flags(nx ? 3 : 0, ad), answers })
}

export async function startFakeDoh(zone: Zone): Promise<FakeUpstream & { setZone(z: Zone): void }> {
  let current = zone
  const server = await startFakeUpstream((req, res) => {
    const wire = req.method === 'GET' ? Buffer.from(req.query.get('dns') ?? '', 'base64url') : req.body
    let decoded: dnsPacket.DecodedPacket
    try {
      decoded = dnsPacket.decode(wire)
    } catch {
      res.writeHead(400).end('bad dns message')
      return
    }
    res.writeHead(200, { 'content-type': 'application/dns-message' })
    res.end(answerQuery(current, decoded))
  })
  return Object.assign(server, { url: `${server.url}/dns-query`, setZone: (z: Zone) => (current = z) })
}

/** Names queried, as `TYPE name`, from the requests the fake received. */
export function queriedNames(server: FakeUpstream): string[] {
  return server.requests.map((r) => {
    const wire = r.method === 'GET' ? Buffer.from(r.query.get('dns') ?? '', 'base64url') : r.body
    const q = dnsPacket.decode(wire).questions?.[0]
    return `${q?.type} ${q?.name}`
  })
}
