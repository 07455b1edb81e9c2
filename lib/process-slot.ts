// Process-wide state. Next bundles proxy.ts, the route handlers and instrumentation separately, so
// a module-level variable exists once per bundle; state that must exist once per process (a pool,
// the rate limiter, shutdown hooks) lives on globalThis under a registered symbol instead.
// Every such slot goes through processSlot(). server.mjs and server/drain.mjs, plain JavaScript
// outside the bundles, share some of them through server/process-slot.mjs, which builds the same
// key (`utility-api.<name>`): change the spelling in both places or in neither.

export interface ProcessSlot<T> {
  get(): T | undefined
  set(value: T | undefined): void
  /** The value, created by `create` on first use (a null it returned is kept). */
  getOrCreate(create: () => T): T
}

export function processSlot<T>(name: string): ProcessSlot<T> {
  const key = Symbol.for(`utility-api.${name}`)
  const store = globalThis as unknown as Record<symbol, T | undefined>
  return {
    get: () => store[key],
    set: (value) => {
      store[key] = value
    },
    getOrCreate: (create) => {
      if (store[key] === undefined) store[key] = create()
      return store[key] as T
    },
  }
}
