import { setTimeout as sleep } from 'node:timers/promises'
import { spawn, type ChildProcess } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { Agent, request } from 'undici'
import { freePort, startApp, type RunningApp } from './app'

// Several instances of the one build behind HAProxy (deploy/haproxy.cfg, Debian's haproxy run in
// the foreground as a child process), for the scale stage and the scale benchmark: start them, read
// which servers HAProxy has UP, restart one on its own port, and send requests from many client
// addresses (the whole of 127.0.0.0/8 is loopback on Linux, so a client socket bound to 127.0.0.x
// reaches the balancer from that address).

const ROOT = fileURLToPath(new URL('../', import.meta.url))
export const HAPROXY_CONFIG = `${ROOT}deploy/haproxy.cfg`
const HAPROXY = process.env.HAPROXY_PATH || '/usr/sbin/haproxy'
/** The servers deploy/haproxy.cfg declares, in order. */
export const SERVER_NAMES = ['app1', 'app2', 'app3'] as const

/** A server's state in HAProxy's stats: UP, DOWN, `UP 1/2` (going down), `DOWN 1/2` (coming up), MAINT, … */
export interface ServerState {
  name: string
  status: string
  /** The last health check's result, e.g. L7OK, L7STS (wrong status), L4CON (refused); the stats' `* ` (a check under way) left off. */
  check: string
  /** Requests this server answered since HAProxy started. */
  sessions: number
}

export interface Balancer {
  url: string
  statsUrl: string
  servers(): Promise<ServerState[]>
  logs(): string
  stop(): Promise<void>
}

/** HAProxy in the foreground (`-db`) with deploy/haproxy.cfg, in front of `ports` (three). */
export async function startHaproxy(ports: number[]): Promise<Balancer> {
  const [port, statsPort] = [await freePort(), await freePort()]
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HAPROXY_BIND: `127.0.0.1:${port}`,
    HAPROXY_STATS_BIND: `127.0.0.1:${statsPort}`,
    ...Object.fromEntries(ports.map((p, i) => [`APP_SERVER_${i + 1}`, `127.0.0.1:${p}`])),
  }
  const child: ChildProcess = spawn(HAPROXY, ['-f', HAPROXY_CONFIG, '-db'], { env: env as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.once('error', (error) => (output += `\n${error.message}`))
  const statsUrl = `http://127.0.0.1:${statsPort}/`
  const servers = async (): Promise<ServerState[]> => {
    const res = await fetch(`${statsUrl};csv`)
    const [head, ...lines] = (await res.text()).trim().split('\n')
    const columns = head.replace(/^# /, '').split(',')
    const at = (name: string) => columns.indexOf(name)
    return lines
      .map((l) => l.split(','))
      .filter((f) => f[at('pxname')] === 'instances' && SERVER_NAMES.includes(f[at('svname')] as (typeof SERVER_NAMES)[number]))
      .map((f) => ({ name: f[at('svname')], status: f[at('status')], check: f[at('check_status')].replace(/^\* /, ''), sessions: Number(f[at('stot')]) }))
  }
  const deadline = Date.now() + 10_000
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`haproxy exited (${child.exitCode ?? child.signalCode}):\n${output}`)
    try {
      await servers()
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`haproxy did not start:\n${output}`)
      await sleep(100)
    }
  }
  return {
    url: `http://127.0.0.1:${port}`,
    statsUrl,
    servers,
    logs: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** Polls HAProxy's stats until `done` holds; throws with the last states after `timeoutMs`. */
export async function waitForServers(balancer: Balancer, done: (servers: ServerState[]) => boolean, what: string, timeoutMs = 30_000): Promise<ServerState[]> {
  const end = Date.now() + timeoutMs
  for (;;) {
    const servers = await balancer.servers()
    if (done(servers)) return servers
    if (Date.now() > end) throw new Error(`HAProxy: not ${what} within ${timeoutMs} ms: ${JSON.stringify(servers)}`)
    await sleep(100)
  }
}

export const allUp = (servers: ServerState[]) => servers.length === SERVER_NAMES.length && servers.every((s) => s.status === 'UP')
export const serverIs = (name: string, status: 'UP' | 'DOWN') => (servers: ServerState[]) => servers.find((s) => s.name === name)?.status === status

export interface Cluster {
  balancer: Balancer
  instances: RunningApp[]
  /** SIGTERM instance `i`, wait for its exit and start it again on the same port; `up` once HAProxy has it UP again. */
  restart(i: number): Promise<{ exitCode: number | null; downAfterMs: number | null; stoppedMs: number; upMs: number }>
  stop(): Promise<void>
}

/**
 * Three instances of the build (`node server.mjs`, one port each; `envOf(i)` adds per-instance
 * settings such as REQUEST_LOG_INSTANCE) and HAProxy in front, returned once HAProxy has all three UP.
 */
export async function startCluster(env: Record<string, string>, envOf: (i: number) => Record<string, string> = () => ({})): Promise<Cluster> {
  const ports = await Promise.all(SERVER_NAMES.map(() => freePort()))
  const envAt = (i: number) => ({ ...env, ...envOf(i), PORT: String(ports[i]) })
  const instances: RunningApp[] = []
  let balancer: Balancer | undefined
  try {
    // One at a time: three Next.js start-ups at once on a small machine take as long and time out more easily.
    for (const i of SERVER_NAMES.keys()) instances.push(await startApp(envAt(i)))
    balancer = await startHaproxy(ports)
    await waitForServers(balancer, allUp, 'all UP')
  } catch (error) {
    await Promise.all(instances.map((app) => app.stop()))
    await balancer?.stop()
    throw error
  }
  const b = balancer
  return {
    balancer: b,
    instances,
    async restart(i) {
      const name = SERVER_NAMES[i]
      const t0 = Date.now()
      const old = instances[i]
      let gone = false
      void old.exited.then(() => (gone = true))
      old.signal('SIGTERM')
      // HAProxy takes the draining instance out while it still serves (its readiness delay).
      let downAfterMs: number | null = null
      const watchDown = (async () => {
        while (!gone && Date.now() - t0 < 60_000) {
          const servers = await b.servers().catch(() => [])
          if (serverIs(name, 'DOWN')(servers)) {
            downAfterMs = Date.now() - t0
            return
          }
          await sleep(100)
        }
      })()
      const exitCode = await old.exited
      await watchDown
      const stoppedMs = Date.now() - t0
      instances[i] = await startApp(envAt(i))
      await waitForServers(b, serverIs(name, 'UP'), `${name} UP again`)
      return { exitCode, downAfterMs, stoppedMs, upMs: Date.now() - t0 }
    },
    async stop() {
      await b.stop()
      await Promise.all(instances.map((app) => app.stop()))
    },
  }
}

/** The settings every instance of a cluster shares: one build, one Postgres, one Redis, behind HAProxy on this host. */
export function clusterEnv(databaseUrl: string, redisUrl: string): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redisUrl,
    TRUSTED_IP_HEADER: 'x-forwarded-for',
    // HAProxy connects from 127.0.0.1: its hop is skipped, the client's address before it counts.
    TRUSTED_PROXIES: '127.0.0.1',
    // deploy/haproxy.cfg marks a server down after two failed checks a second apart (~2-3 s);
    // the delay leaves a few seconds more for a check that is slow on a loaded machine.
    SHUTDOWN_READINESS_DELAY_MS: '6000',
    // What the build was made with (docs/deployment.md, "One build for all instances"): the same for every instance.
    DEPLOYMENT_ID: process.env.DEPLOYMENT_ID ?? '',
    NEXT_SERVER_ACTIONS_ENCRYPTION_KEY: process.env.NEXT_SERVER_ACTIONS_ENCRYPTION_KEY ?? '',
    CRON_SECRET: randomBytes(24).toString('hex'),
    // The quota is counted in Redis: a generous store timeout keeps a loaded machine from failing
    // open to per-instance counts mid-burst (fail-open has its own tests in the fault stage).
    RATE_LIMIT_TIMEOUT_MS: '5000',
  }
}

/** A client whose connections leave from `address` (127.0.0.x), each with `connections` kept-alive sockets at most. */
export function clientAt(address: string, connections = 4): Agent {
  // The client's localAddress (undici passes it to net.connect; `connect: { localAddress }` would be overridden).
  return new Agent({ localAddress: address, connections, keepAliveTimeout: 5_000 })
}

export interface Answer {
  status: number
  requestId: string | null
  ms: number
  at: number
  error?: string
}

/** One GET through `agent`; the body is read, a transport error is an answer with status 0. */
export async function get(agent: Agent, url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const t0 = performance.now()
  try {
    const res = await request(url, { dispatcher: agent, headers, headersTimeout: 60_000, bodyTimeout: 60_000 })
    await res.body.arrayBuffer()
    const id = res.headers['x-request-id']
    return { status: res.statusCode, requestId: typeof id === 'string' ? id : null, ms: performance.now() - t0, at: Date.now() }
  } catch (error) {
    return { status: 0, requestId: null, ms: performance.now() - t0, at: Date.now(), error: String(error) }
  }
}

/** `count` addresses from 127.0.`third`.`first` on (never 127.0.0.1, the balancer's own). */
export const clientAddresses = (count: number, third = 0, first = 2) => Array.from({ length: count }, (_, i) => `127.0.${third}.${first + i}`)

/** Fixed windows start on multiples of the window: wait for a fresh one when fewer than `needS` seconds are left. */
export async function atWindowStart(windowS: number, needS: number) {
  const into = (Date.now() / 1000) % windowS
  if (windowS - into < needS) await sleep((windowS - into) * 1000 + 50)
}
