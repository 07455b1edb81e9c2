#!/usr/bin/env node
// Cycles between lib/ folders (a top-level lib/ file is its own node), which the file-level rules of
// .dependency-cruiser.cjs cannot see: folder A importing folder B while B imports A, directly or
// through others. Exits 1 and prints the shortest cycle through each folder that is in one.
import { cruise } from 'dependency-cruiser'

const room = (file) =>
  file.startsWith('lib/')
    ? file
        .split('/')
        .slice(0, 2)
        .join('/')
        .replace(/\.(tsx?|mjs)$/, '')
    : null

const { output } = await cruise(['lib'], {
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  doNotFollow: { path: 'node_modules' },
  exclude: { path: '\\.(test|spec)\\.' },
})
const edges = new Map()
for (const mod of output.modules) {
  const from = room(mod.source)
  if (!from) continue
  for (const dep of mod.dependencies) {
    const to = room(dep.resolved)
    // Type-only imports vanish at build time and form no cycle at run time.
    if (!to || to === from || dep.typeOnly || dep.dependencyTypes.includes('type-only')) continue
    if (!edges.has(from)) edges.set(from, new Map())
    edges.get(from).set(to, `${mod.source} → ${dep.resolved}`)
  }
}

// Breadth-first from each folder back to itself: the shortest cycle through it, reported once.
const reported = new Set()
const cycles = []
for (const start of [...edges.keys()].sort()) {
  const previous = new Map([[start, null]])
  const queue = [start]
  let last = null
  while (queue.length && !last) {
    const folder = queue.shift()
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (next === start) {
        last = folder
        break
      }
      if (!previous.has(next)) previous.set(next, folder) && queue.push(next)
    }
  }
  if (!last) continue
  const path = [start]
  for (let folder = last; folder !== start; folder = previous.get(folder)) path.splice(1, 0, folder)
  const key = [...path].sort().join()
  if (reported.has(key)) continue
  reported.add(key)
  cycles.push([...path, start])
}

for (const cycle of cycles) {
  console.error(`folder cycle: ${cycle.join(' → ')}`)
  for (let i = 0; i < cycle.length - 1; i++) console.error(`  ${edges.get(cycle[i]).get(cycle[i + 1])}`)
}
if (cycles.length) process.exit(1)
console.log(`no cycle between ${edges.size} lib/ folders`)
