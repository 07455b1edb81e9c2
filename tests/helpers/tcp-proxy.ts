import { connect, createServer, type Socket } from 'node:net'

// A loopback TCP proxy in front of a dependency (Redis, Postgres), for fault injection:
//   pass  forwards both ways;
//   cut   drops every connection and resets new ones (the dependency died);
//   hang  accepts and keeps connections but forwards nothing new to the dependency (it stopped
//         answering); answers to what it had already received still come back.
// restore() after a hang drops the hung connections, as a restarted dependency would, so bytes
// queued during the hang are never delivered late.

export type ProxyMode = 'pass' | 'cut' | 'hang'

export interface TcpProxy {
  port: number
  mode(): ProxyMode
  cut(): void
  hang(): void
  restore(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass'
  const pairs = new Set<{ client: Socket; upstream: Socket; hung: boolean }>()
  const server = createServer((client) => {
    if (mode === 'cut') return client.resetAndDestroy()
    const upstream = connect(target.port, target.host)
    const pair = { client, upstream, hung: mode === 'hang' }
    pairs.add(pair)
    client.on('data', (d) => {
      if (mode === 'hang') pair.hung = true
      else if (!pair.hung) upstream.write(d)
    })
    upstream.on('data', (d) => client.write(d))
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      upstream.destroy()
    }
    client.on('close', end).on('error', end)
    upstream.on('close', end).on('error', end)
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const dropAll = (only?: (p: { hung: boolean }) => boolean) => {
    for (const pair of [...pairs]) {
      if (only && !only(pair)) continue
      pair.client.resetAndDestroy()
      pair.upstream.destroy()
      pairs.delete(pair)
    }
  }
  return {
    port: (server.address() as { port: number }).port,
    mode: () => mode,
    cut() {
      mode = 'cut'
      dropAll()
    },
    hang() {
      mode = 'hang'
    },
    restore() {
      if (mode === 'hang') dropAll((p) => p.hung)
      mode = 'pass'
    },
    close: () =>
      new Promise((r) => {
        dropAll()
        server.close(() => r())
      }),
  }
}
