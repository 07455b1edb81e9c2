// `npm run bench`: runs the scenarios in bench/scenarios/ (or those named as arguments) against the
// already-built server (`npm run build` first; nothing is built here), prints a table with ratios
// and writes bench/results/latest.json.
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { BenchRow, Scenario } from './lib'

const dir = fileURLToPath(new URL('./scenarios/', import.meta.url))
if (!existsSync(fileURLToPath(new URL('../.next/BUILD_ID', import.meta.url)))) {
  console.error('No production build: run `npm run build` first.')
  process.exit(1)
}

async function main() {
  const wanted = process.argv.slice(2)
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()
  const rows: BenchRow[] = []
  for (const file of files) {
    const scenario = (await import(`./scenarios/${file}`)).default as Scenario
    if (wanted.length && !wanted.includes(scenario.name)) continue
    console.log(`\n# ${scenario.name}`)
    const got = await scenario.run()
    rows.push(...got)
    print(got)
  }
  mkdirSync(fileURLToPath(new URL('./results/', import.meta.url)), { recursive: true })
  writeFileSync(
    new URL('./results/latest.json', import.meta.url),
    JSON.stringify({ time: new Date().toISOString(), node: process.version, rows }, null, 2) + '\n',
  )
  console.log('\nwrote bench/results/latest.json')
}

function print(list: BenchRow[]) {
  const fmt = (n: number | undefined) => (n === undefined ? '' : n >= 100 ? n.toFixed(0) : n.toFixed(2))
  console.table(
    list.map((r) => ({
      group: r.group,
      metric: r.name,
      value: `${fmt(r.value)} ${r.unit}`,
      baseline: r.baseline === undefined ? '' : `${fmt(r.baseline)} ${r.unit} (${r.baselineName ?? 'baseline'})`,
      ratio: r.baseline ? fmt(r.value / r.baseline) : '',
      note: r.note ?? '',
    })),
  )
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
