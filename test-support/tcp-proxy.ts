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
  /**
   * Loses the acknowledgement of the next COMMIT: the statement reaches the database, which
   * commits, but the connection to the client is reset before the answer comes back.
   */
  loseNextCommitAck(): void
  /** Hangs (as hang()) from the next COMMIT on, which is not forwarded: the database never sees it. */
  hangAtNextCommit(): void
  restore(): void
  close(): Promise<void>
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  let mode: ProxyMode = 'pass'
  let loseCommitAck = false
  let hangAtCommit = false
  // A simple-protocol Query message that is a COMMIT ('Q', its length, the text, NUL).
  const COMMIT = /Q[\s\S]{4}commit;?\x00/i
  const pairs = new Set<{ client: Socket; upstream: Socket; hung: boolean }>()
  const server = createServer((client) => {
    if (mode === 'cut') return client.resetAndDestroy()
    const upstream = connect(target.port, target.host)
    const pair = { client, upstream, hung: mode === 'hang' }
    pairs.add(pair)
    let acking = true
    client.on('data', (d) => {
      if (hangAtCommit && COMMIT.test(d.toString('latin1'))) {
        hangAtCommit = false
        mode = 'hang'
      }
      if (mode === 'hang') pair.hung = true
      else if (!pair.hung) {
        upstream.write(d)
        if (loseCommitAck && COMMIT.test(d.toString('latin1'))) {
          loseCommitAck = false
          acking = false
          client.resetAndDestroy()
          setTimeout(() => upstream.destroy(), 300)
        }
      }
    })
    upstream.on('data', (d) => acking && client.write(d))
    const end = () => {
      pairs.delete(pair)
      client.destroy()
      if (acking) upstream.destroy() // a lost acknowledgement closes the database side itself, later
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
    loseNextCommitAck() {
      loseCommitAck = true
    },
    hangAtNextCommit() {
      hangAtCommit = true
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
