// A closed-loop load generator for the fault stage: `connections` workers each send one request at
// a time for `durationMs`, recording status and latency of every answer (or the error).

export interface Sample {
  status: number
  ms: number
  at: number
  requestId: string | null
  error?: string
}

export interface LoadStats {
  samples: Sample[]
  answered: number
  errors: number
  /** Answers with status ≥ 500, plus transport errors. */
  failures: number
  p50: number
  p99: number
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]
}

export function stats(samples: Sample[]): LoadStats {
  const ms = samples.filter((s) => !s.error).map((s) => s.ms)
  const errors = samples.filter((s) => s.error).length
  return {
    samples,
    answered: samples.length - errors,
    errors,
    failures: errors + samples.filter((s) => s.status >= 500).length,
    p50: percentile(ms, 50),
    p99: percentile(ms, 99),
  }
}

export async function runLoad(
  request: (i: number) => Promise<Response>,
  { connections = 8, durationMs }: { connections?: number; durationMs: number },
): Promise<Sample[]> {
  const samples: Sample[] = []
  const end = Date.now() + durationMs
  let n = 0
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < end) {
        const t0 = performance.now()
        try {
          const res = await request(n++)
          await res.arrayBuffer()
          samples.push({ status: res.status, ms: performance.now() - t0, at: Date.now(), requestId: res.headers.get('x-request-id') })
        } catch (error) {
          samples.push({ status: 0, ms: performance.now() - t0, at: Date.now(), requestId: null, error: String(error) })
        }
      }
    }),
  )
  return samples
}
