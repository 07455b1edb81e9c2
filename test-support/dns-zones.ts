import type { Zone } from './fake-doh'
import { fixtureJson } from './fake-upstream'

/** Zone fixtures from tests/fixtures/dns/ merged into one zone for the fake DoH server. */
export function loadZones(...names: string[]): Zone {
  const zone: Required<Zone> = { records: {}, secure: [], servfail: [] }
  for (const name of names) {
    const z = fixtureJson<Zone>(`dns/${name}.json`)
    for (const [owner, records] of Object.entries(z.records)) zone.records[owner] = [...(zone.records[owner] ?? []), ...records]
    zone.secure.push(...(z.secure ?? []))
    zone.servfail.push(...(z.servfail ?? []))
  }
  return zone
}
