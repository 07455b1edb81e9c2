import { setTimeout as sleep } from 'node:timers/promises'
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../', import.meta.url))

/** The local operator's key every test app starts with (server.mjs accepts a preset LOCAL_OPERATOR_KEY). */
export const TEST_OPERATOR_KEY = 'itest-local-operator-key'

export interface RunningApp {
  url: string
  /** The Cookie header of a browser that opened the local operator's link. */
  operatorCookie: string
  port: number
  pid: number
  logs: () => string
  stop: () => Promise<void>
  /** Sends a signal; `exited` resolves with the exit code. */
  signal: (signal: NodeJS.Signals) => void
  exited: Promise<number | null>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/**
 * Starts the built application (`node server.mjs`, as `npm start` does) on a free loopback port
 * (or `env.PORT`, to start an instance again where it was) with exactly the given environment on
 * top of a clean base, and waits until it answers. Requires a production build (`npm run build`).
 */
export async function startApp(env: Record<string, string | undefined> = {}): Promise<RunningApp> {
  const port = env.PORT ? Number(env.PORT) : await freePort()
  const base: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NEXT_TELEMETRY_DISABLED: '1',
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    // Without DATABASE_URL the app opens PGlite; apps started side by side must not share a directory.
    PGLITE_DIR: 'memory://',
    LOCAL_OPERATOR_KEY: TEST_OPERATOR_KEY,
    // Tests load the rows they assert on; demo rows only where a test asks for them.
    QUERY_DEMO_ROWS: '0',
  }
  const fullEnv = { ...base, ...Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)) } as Record<string, string>
  const child: ChildProcess = spawn(process.execPath, ['server.mjs'], { cwd: ROOT, env: fullEnv as NodeJS.ProcessEnv, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  child.stdout!.on('data', (d) => (output += d))
  child.stderr!.on('data', (d) => (output += d))
  const url = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`app exited with ${child.exitCode}:\n${output}`)
    try {
      // Probe a page outside /api so readiness checks never use up a client's rate-limit quota.
      const res = await fetch(`${url}/`)
      await res.body?.cancel()
      break
    } catch {
      if (Date.now() > deadline) throw new Error(`app did not start:\n${output}`)
      await sleep(100)
    }
  }
  return {
    url,
    // Named for the port (lib/access/local-operator.ts).
    operatorCookie: `local_operator_key_${port}=${fullEnv.LOCAL_OPERATOR_KEY ?? ''}`,
    port,
    pid: child.pid!,
    exited,
    signal: (signal) => void child.kill(signal),
    logs: () => output,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve()
        child.once('exit', () => resolve())
        child.kill('SIGTERM')
        setTimeout(() => child.kill('SIGKILL'), 5000).unref()
      }),
  }
}
