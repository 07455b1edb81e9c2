export type ServiceState = 'ok' | 'down' | 'auth' | 'error'
export interface Facts {
  os: { platform: string; debianLike: boolean; apt: boolean; root: boolean; aptError?: string }
  chromium?: { path: string; override: boolean; present: boolean }
  postgres?: { url: string; override: boolean; state: ServiceState; detail?: string; installed: boolean; version?: string }
  redis?: { url: string; override: boolean; state: ServiceState; detail?: string; installed: boolean }
}
export type Step =
  | { kind: 'apt-update' }
  | { kind: 'apt-install'; packages: string[] }
  | { kind: 'trust-postgres-loopback' }
  | { kind: 'start-postgres'; version?: string }
  | { kind: 'start-redis' }
  | { kind: 'create-databases'; url: string; names: string[] }
export interface Problem {
  what: string
  commands: string[]
}
export interface Needs {
  chromium: boolean
  postgres: boolean
  redis: boolean
}
export interface Machine {
  probe(env: Record<string, string | undefined>, needs: Needs): Promise<Facts>
  runStep(step: Step): Promise<void>
}
export const DEFAULT_CHROMIUM: string
export const DEFAULT_DATABASE_URL: string
export const DEFAULT_REDIS_URL: string
export const DEFAULT_DATABASES: string[]
export function planProvisioning(facts: Facts): { steps: Step[]; problems: Problem[] }
export function formatProblems(problems: Problem[]): string
export function needsOf(stageNames: string[]): Needs
export function describeStep(step: Step): string
export function probeMachine(env?: Record<string, string | undefined>, needs?: Needs): Promise<Facts>
export function runStep(step: Step): Promise<void>
export function provision(options?: { env?: Record<string, string | undefined>; needs?: Needs; machine?: Machine; log?: (line: string) => void }): Promise<{ steps: Step[] }>
