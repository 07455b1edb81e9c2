import autocannon from 'autocannon'

// Shared measuring tools for bench scenarios. Figures are compared as ratios against a baseline
// measured in the same run, never as absolute thresholds.

export interface BenchRow {
  group: string
  name: string
  value: number
  unit: string
  /** The same metric for the baseline it is compared with (same run). */
  baseline?: number
  baselineName?: string
  note?: string
}

export interface LoadResult {
  requestsPerSec: number
  p50Ms: number
  p99Ms: number
  non2xx: number
}

export async function load(url: string, opts: { connections?: number; durationS?: number; headers?: Record<string, string> } = {}): Promise<LoadResult> {
  // Warm up first so JIT compilation and connection set-up are not measured.
  await autocannon({ url, connections: opts.connections ?? 10, duration: 1, headers: opts.headers })
  const r = await autocannon({ url, connections: opts.connections ?? 10, duration: opts.durationS ?? 5, headers: opts.headers })
  return { requestsPerSec: r.requests.average, p50Ms: r.latency.p50, p99Ms: r.latency.p99, non2xx: r.non2xx }
}

/** Median wall time of `fn` over `runs` sequential runs, in ms. */
export async function medianMs(runs: number, fn: () => Promise<unknown>): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    await fn()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)]
}

/**
 * Medians of `a` and `b` over `runs` runs each, alternating a and b, so both see the same load on
 * a shared machine.
 */
export async function pairedMedians(runs: number, a: () => Promise<unknown>, b: () => Promise<unknown>): Promise<[number, number]> {
  const times: [number[], number[]] = [[], []]
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of [a, b].entries()) {
      const t0 = performance.now()
      await fn()
      times[k].push(performance.now() - t0)
    }
  }
  const median = (t: number[]) => t.sort((x, y) => x - y)[Math.floor(t.length / 2)]
  return [median(times[0]), median(times[1])]
}

export type Scenario = { name: string; run: () => Promise<BenchRow[]> }

/** Relations a plan reads without an index: sequential scans of dataset rows (not of rollups). */
export function seqScans(plan: unknown): string[] {
  const found: string[] = []
  const walk = (node: Record<string, unknown>) => {
    if (node['Node Type'] === 'Seq Scan' && !String(node['Relation Name']).includes('_rollup')) found.push(String(node['Relation Name']))
    for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child)
  }
  walk((plan as Array<{ Plan: Record<string, unknown> }>)[0].Plan)
  return found
}
