export type AuditVerdict = { kind: 'unreachable'; reason: string } | { kind: 'checked'; failing: string[]; other: string[]; total: number | null }
export function auditVerdict(report: unknown): AuditVerdict
