// Graceful draining for server.mjs. On the first SIGTERM/SIGINT readiness (/api/health) answers
// 503 at once, while the server keeps accepting and answering for the readiness delay, so a load
// balancer's health check takes the instance out before any connection is refused. Then the
// server stops accepting connections, answers every further request (and every in-flight one whose headers are not sent
// yet) with `Connection: close`, lets in-flight requests finish for up to the grace period, cuts
// and logs those still running, runs the shutdown hooks (the request log's last flush, which has
// its own deadline) and exits 0. A second signal runs the urgent hooks (synchronous spooling) and
// exits at once.
import { constants } from 'node:os'
import { processSlotKey } from './process-slot.mjs'

const HOOKS = processSlotKey('shutdown-hooks')
const URGENT = processSlotKey('shutdown-urgent-hooks')
const SETTINGS = processSlotKey('shutdown-settings')
const DRAINING = processSlotKey('draining')
const DEFAULT_GRACE_MS = 25_000
const DEFAULT_READINESS_DELAY_MS = 0
// Past the hooks' own deadlines: a hook that never settles must not keep the process alive.
const HOOKS_HARD_LIMIT_MS = 10_000

const line = (level, msg, fields = {}) =>
  (level === 'info' ? console.log : console.error)(JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }))

/**
 * Tracks the connections and in-flight requests of `server`. Returns `drain(reason)`, which
 * resolves once every request has finished or been cut, and the shutdown hooks have run.
 */
export function trackForDrain(server, { now = () => Date.now() } = {}) {
  const idle = new Set()
  const inflight = new Set()
  let draining = false
  let settle = null

  server.on('connection', (socket) => {
    idle.add(socket)
    socket.once('close', () => idle.delete(socket))
  })
  server.on('request', (req, res) => {
    const entry = { req, res, started: now() }
    inflight.add(entry)
    idle.delete(req.socket)
    if (draining) res.setHeader('connection', 'close')
    res.once('close', () => {
      inflight.delete(entry)
      if ([...inflight].every((e) => e.req.socket !== req.socket) && !req.socket.destroyed) {
        idle.add(req.socket)
        // A kept-alive connection that went quiet during the drain: nothing more will come on it.
        if (draining) req.socket.destroySoon()
      }
      if (draining && inflight.size === 0) settle?.()
    })
  })

  async function drain(graceMs) {
    draining = true
    globalThis[DRAINING] = true
    server.close()
    for (const socket of idle) socket.destroySoon()
    for (const { res } of inflight) if (!res.headersSent) res.setHeader('connection', 'close')
    const started = now()
    const count = inflight.size
    if (inflight.size > 0) {
      const allDone = new Promise((resolve) => (settle = resolve))
      let timer
      await Promise.race([allDone, new Promise((resolve) => (timer = setTimeout(resolve, graceMs)))])
      clearTimeout(timer)
    }
    const cut = [...inflight].map(({ req, started: t }) => ({ method: req.method, url: req.url, runningMs: now() - t }))
    for (const { req, res } of inflight) {
      res.destroy()
      req.socket.destroy()
    }
    return { inflightAtSignal: count, completed: count - cut.length, cut, waitedMs: now() - started }
  }
  return { drain, inflight: () => inflight.size }
}

async function runHooks(slot) {
  const hooks = globalThis[slot] ?? []
  let timer
  const hardLimit = new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), HOOKS_HARD_LIMIT_MS)))
  const outcome = await Promise.race([Promise.allSettled(hooks.map((hook) => hook())), hardLimit])
  clearTimeout(timer)
  if (outcome === 'timeout') line('error', 'shutdown hooks did not finish in time', { limitMs: HOOKS_HARD_LIMIT_MS })
  else for (const r of outcome) if (r.status === 'rejected') line('error', 'shutdown hook failed', { error: String(r.reason) })
}

/** Wires SIGTERM and SIGINT to a graceful drain of `server`, then process exit. */
export function drainOnSignals(server) {
  const { drain } = trackForDrain(server)
  let signalled = false
  const onSignal = async (signal) => {
    if (signalled) {
      line('warn', `${signal} again: exiting now`)
      for (const hook of globalThis[URGENT] ?? []) {
        try {
          hook()
        } catch (error) {
          line('error', 'urgent shutdown hook failed', { error: String(error) })
        }
      }
      process.exit(128 + (constants.signals[signal] ?? 15))
    }
    signalled = true
    const graceMs = globalThis[SETTINGS]?.graceMs ?? DEFAULT_GRACE_MS
    const delayMs = globalThis[SETTINGS]?.readinessDelayMs ?? DEFAULT_READINESS_DELAY_MS
    globalThis[DRAINING] = true
    if (delayMs > 0) {
      line('info', `${signal}: readiness answers 503; still answering for the readiness delay`, { delayMs })
      await new Promise((resolve) => setTimeout(resolve, delayMs))
    }
    line('info', `${signal}: draining`, { graceMs })
    const result = await drain(graceMs)
    if (result.cut.length > 0) line('warn', 'requests cut short at the end of the grace period', { graceMs, cut: result.cut })
    line('info', 'requests drained', { completed: result.completed, cut: result.cut.length, waitedMs: result.waitedMs })
    await runHooks(HOOKS)
    line('info', 'shutdown complete')
    process.exit(0)
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}
