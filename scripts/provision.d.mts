export type ServiceState = 'ok' | 'down' | 'auth' | 'error'
export interface Facts {
  os: { platform: string; debianLike: boolean; apt: boolean; root: boolean; aptError?: string }
  chromium?: { path: string; override: boolean; present: boolean }
  haproxy?: { path: string; override: boolean; present: boolean }
  postgres?: { url: string; override: boolean; state: ServiceState; detail?: string; installed: boolean; version?: string }
  redis?: { url: string; override: boolean; state: ServiceState; detail?: string; installed: boolean }
  replica?: ReplicaFacts
}
export interface ReplicaFacts {
  url: string
  override: boolean
  state: 'ok' | 'not-streaming' | 'not-replica' | 'down' | 'error'
  detail?: string
  dir: string
  dirState: 'absent' | 'valid' | 'broken'
  version?: string
  binDir?: string
  primary: { host: string; port: number; local: boolean }
  replication: 'ok' | 'refused' | 'error'
}
export type Step =
  | { kind: 'apt-update' }
  | { kind: 'apt-install'; packages: string[] }
  | { kind: 'trust-postgres-loopback' }
  | { kind: 'start-postgres'; version?: string }
  | { kind: 'start-redis' }
  | { kind: 'create-databases'; url: string; names: string[] }
  | { kind: 'trust-replication-loopback'; version: string }
  | { kind: 'stop-replica'; dir: string; binDir: string }
  | { kind: 'make-replica'; dir: string; binDir: string; primary: { host: string; port: number } }
  | { kind: 'start-replica'; dir: string; binDir: string; port: number; url: string; primary: { host: string; port: number } }
export interface Problem {
  what: string
  commands: string[]
}
export interface Needs {
  chromium: boolean
  haproxy: boolean
  postgres: boolean
  redis: boolean
  replica: boolean
}
export interface Machine {
  probe(env: Record<string, string | undefined>, needs: Needs): Promise<Facts>
  runStep(step: Step): Promise<void>
}
export declare const DEFAULT_CHROMIUM: string
export declare const DEFAULT_HAPROXY: string
export declare const DEFAULT_DATABASE_URL: string
export declare const DEFAULT_REDIS_URL: string
export declare const DEFAULT_DATABASES: string[]
export declare const DEFAULT_REPLICA_PORT: number
export declare const REPLICA_DIR: string
export declare function replicaUrl(env?: Record<string, string | undefined>): string
export declare function probeReplica(url: string, options?: { waitMs?: number }): Promise<{ state: ReplicaFacts['state']; detail?: string }>
export declare function stopReplica(dir: string, binDir: string): void
export declare function startReplica(dir: string, binDir: string, port: number): void
export declare function planProvisioning(facts: Facts): { steps: Step[]; problems: Problem[] }
export declare function formatProblems(problems: Problem[]): string
export declare function needsOf(stageNames: string[]): Needs
export declare function describeStep(step: Step): string
export declare function probeMachine(env?: Record<string, string | undefined>, needs?: Needs): Promise<Facts>
export declare function runStep(step: Step): Promise<void>
export declare function provision(options?: {
  env?: Record<string, string | undefined>
  needs?: Needs
  machine?: Machine
  log?: (line: string) => void
}): Promise<{ steps: Step[] }>
