import 'server-only'
import { and, desc, eq, isNotNull, notInArray, sql } from 'drizzle-orm'
import { z } from 'zod'
import { alertEvaluation, queryHistory, savedQuery } from '@/lib/saved-views/tables'
import type { Identity } from '@/lib/access/policy'
import { Condition } from '@/lib/saved-views/condition'
import { DATASETS } from '@/lib/datasets/catalog'
import { config } from '@/lib/config'
import { getReadyDatabase, type Db } from '@/lib/db/client'
import { AppError } from '@/lib/errors'
import { log } from '@/lib/log'
import { parse } from '@/lib/query/service'
import { asQueryIdentity } from '@/lib/query/concurrency'
import { parseViewState, viewQuery } from '@/lib/view/view-state'

// Saved views and run history, per identity. Every statement is scoped by `owner`, which comes
// from the access decision and never from the request: an id or a name of someone else's view
// finds nothing, so it can be neither read nor changed. A view is stored as the page's canonical
// query string; sharing one means sharing that URL (the state), never the saved entry.

export const HISTORY_SIZE = 50
export const MAX_SAVED = 200
export const QUERY_PAGES = ['rows', 'dashboard'] as const
export type QueryPage = (typeof QUERY_PAGES)[number]

/** The key a person's views are stored under: their email, or `local` for the local operator. */
export function ownerOf(identity: Identity): string {
  if (identity.kind === 'local') return 'local'
  return identity.email ? `email:${identity.email.toLowerCase()}` : `subject:${identity.issuer} ${identity.subject}`
}

/** Runs `fn` with its query statements counted against the operator's (lib/query/concurrency.ts). */
export function queryAs<T>(identity: Identity, fn: () => Promise<T>): Promise<T> {
  return asQueryIdentity(ownerOf(identity), fn)
}

const Name = z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters')

export const SaveViewInput = z.object({ name: Name, page: z.enum(QUERY_PAGES), view: z.string().max(10_000) }).strict()
export type SaveViewInput = z.input<typeof SaveViewInput>
export const RenameInput = z.object({ name: Name }).strict()
export const ConditionInput = z.object({ condition: Condition.nullable() }).strict()
const SavedId = z.uuid()

export interface SavedView {
  id: string
  name: string
  page: QueryPage
  view: string
  /** The alert condition the alerts job evaluates on this view (lib/alerts), or null. */
  condition: Condition | null
  createdAt: string
  updatedAt: string
}

export interface HistoryEntry {
  id: number
  page: QueryPage
  view: string
  ranAt: string
  rowCount: number | null
  elapsedMs: number | null
  error: string | null
}

async function database(db?: Db): Promise<Db> {
  return db ?? (await getReadyDatabase()).db
}

/** The canonical query string of a view; a view that a page would not take as is is refused. */
function canonicalView(view: string): string {
  const { state, notices } = parseViewState(Object.fromEntries(new URLSearchParams(view)), { maxRangeDays: config.QUERY_MAX_RANGE_DAYS })
  if (notices.length) throw new AppError('invalid_input', `view: ${notices.join(' ')}`)
  return viewQuery({ ...state, offset: 0 })
}

const toSaved = (r: typeof savedQuery.$inferSelect): SavedView => ({
  id: r.id,
  name: r.name,
  page: r.page as QueryPage,
  view: r.view,
  condition: r.condition ? (Condition.safeParse(r.condition).data ?? null) : null,
  createdAt: r.createdAt.toISOString(),
  updatedAt: r.updatedAt.toISOString(),
})

export async function listSaved(owner: string, db?: Db): Promise<SavedView[]> {
  const rows = await (await database(db)).select().from(savedQuery).where(eq(savedQuery.owner, owner)).orderBy(desc(savedQuery.updatedAt))
  return rows.map(toSaved)
}

/** One of the owner's saved views; someone else's id finds nothing (404), like a missing one. */
export async function getSaved(owner: string, id: string, db?: Db): Promise<SavedView> {
  const [row] = await (
    await database(db)
  )
    .select()
    .from(savedQuery)
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.id, checkId(id))))
  if (!row) throw notFound()
  return toSaved(row)
}

/** Saves a view under a name; saving again under the same name replaces that view. */
export async function saveView(owner: string, input: SaveViewInput, db?: Db): Promise<SavedView> {
  const { name, page, view } = parse(SaveViewInput, input)
  const d = await database(db)
  const canonical = canonicalView(view)
  const [{ count, named }] = await d
    .select({ count: sql<number>`count(*)::int`, named: sql<number>`count(*) FILTER (WHERE ${savedQuery.name} = ${name})::int` })
    .from(savedQuery)
    .where(eq(savedQuery.owner, owner))
  if (!named && count >= MAX_SAVED) throw new AppError('conflict', `You have ${MAX_SAVED} saved views, the most there can be; delete one first.`)
  const [row] = await d
    .insert(savedQuery)
    .values({ owner, name, page, view: canonical })
    .onConflictDoUpdate({ target: [savedQuery.owner, savedQuery.name], set: { page, view: canonical, updatedAt: new Date() } })
    .returning()
  return toSaved(row)
}

export async function renameSaved(owner: string, id: string, input: z.input<typeof RenameInput>, db?: Db): Promise<SavedView> {
  const { name } = parse(RenameInput, input)
  const savedId = checkId(id)
  const d = await database(db)
  const clash = await d
    .select({ id: savedQuery.id })
    .from(savedQuery)
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.name, name)))
  if (clash.some((c) => c.id !== savedId)) throw new AppError('conflict', `You already have a saved view named “${name}”.`)
  const [row] = await d
    .update(savedQuery)
    .set({ name, updatedAt: new Date() })
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.id, savedId)))
    .returning()
  if (!row) throw notFound()
  return toSaved(row)
}

/**
 * Sets (or with null, removes) the alert condition of one of your saved views. An error rate needs
 * a dataset whose catalog entry says which rows are errors.
 */
export async function setCondition(owner: string, id: string, input: z.input<typeof ConditionInput>, db?: Db): Promise<SavedView> {
  const { condition } = parse(ConditionInput, input)
  const savedId = checkId(id)
  const d = await database(db)
  const [current] = await d
    .select()
    .from(savedQuery)
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.id, savedId)))
  if (!current) throw notFound()
  const dataset = DATASETS[parseViewState(Object.fromEntries(new URLSearchParams(current.view))).state.dataset]
  if (condition?.metric === 'error_rate' && !dataset.errorFilter)
    throw new AppError('invalid_input', `condition: ${dataset.label} has no error rate (nothing marks a row as an error); use a row count and a filter instead`)
  const texts = dataset.columns.filter((c) => c.type === 'text').map((c) => c.name)
  if (condition?.patternColumn !== undefined && !texts.includes(condition.patternColumn))
    throw new AppError(
      'invalid_input',
      `condition: patternColumn ${JSON.stringify(condition.patternColumn)} is not a text column of ${dataset.label} (${texts.join(', ')})`,
    )
  const [row] = await d
    .update(savedQuery)
    .set({ condition, updatedAt: new Date() })
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.id, savedId)))
    .returning()
  if (!row) throw notFound()
  return toSaved(row)
}

/** Every saved view that carries a condition, whoever owns it (the alerts job), oldest first. */
export async function listConditions(db: Db, limit = 1000): Promise<Array<SavedView & { owner: string }>> {
  const rows = await db.select().from(savedQuery).where(isNotNull(savedQuery.condition)).orderBy(savedQuery.createdAt, savedQuery.id).limit(limit)
  return rows.flatMap((r) => {
    const saved = toSaved(r)
    return saved.condition ? [{ ...saved, owner: r.owner }] : []
  })
}

export async function deleteSaved(owner: string, id: string, db?: Db): Promise<void> {
  const rows = await (
    await database(db)
  )
    .delete(savedQuery)
    .where(and(eq(savedQuery.owner, owner), eq(savedQuery.id, checkId(id))))
    .returning({ id: savedQuery.id })
  if (!rows.length) throw notFound()
}

// Someone else's id answers exactly like an id that does not exist, and so does a malformed one.
const notFound = () => new AppError('not_found', 'There is no saved view with this id among yours.')

function checkId(id: string): string {
  if (!SavedId.safeParse(id).success) throw notFound()
  return id
}

export interface RunRecord {
  page: QueryPage
  view: string
  rowCount?: number
  elapsedMs?: number
  error?: string
}

/**
 * Adds a run to the owner's history and keeps the newest HISTORY_SIZE. A failure here is logged,
 * never shown: the history must not break the page that ran the query.
 */
export async function recordRun(owner: string, run: RunRecord, db?: Db): Promise<void> {
  try {
    const d = await database(db)
    await d
      .insert(queryHistory)
      .values({ owner, page: run.page, view: run.view, rowCount: run.rowCount ?? null, elapsedMs: run.elapsedMs ?? null, error: run.error ?? null })
    const keep = d.select({ id: queryHistory.id }).from(queryHistory).where(eq(queryHistory.owner, owner)).orderBy(desc(queryHistory.id)).limit(HISTORY_SIZE)
    await d.delete(queryHistory).where(and(eq(queryHistory.owner, owner), notInArray(queryHistory.id, keep)))
  } catch (error) {
    log.warn('query history not recorded', { error: error instanceof Error ? error.message : String(error) })
  }
}

export async function listHistory(owner: string, db?: Db): Promise<HistoryEntry[]> {
  const rows = await (await database(db)).select().from(queryHistory).where(eq(queryHistory.owner, owner)).orderBy(desc(queryHistory.id)).limit(HISTORY_SIZE)
  return rows.map((r) => ({
    id: r.id,
    page: r.page as QueryPage,
    view: r.view,
    ranAt: r.ranAt.toISOString(),
    rowCount: r.rowCount,
    elapsedMs: r.elapsedMs,
    error: r.error,
  }))
}

export interface Evaluation {
  id: number
  viewId: string
  at: string
  windowStart: string
  windowEnd: string
  value: number | null
  threshold: number
  held: number
  consecutiveWindows: number
  state: string
  delivery: string | null
  outcomes: Array<{ destination: string; delivered: boolean; status: number | null; error: string | null }> | null
  error: string | null
}

/** The latest evaluations of each of the owner's views with an alert, newest first (`perView` each). */
export async function listEvaluations(owner: string, viewIds: string[], perView = 10, db?: Db): Promise<Map<string, Evaluation[]>> {
  const byView = new Map<string, Evaluation[]>()
  if (!viewIds.length) return byView
  const d = await database(db)
  const rows = await Promise.all(
    viewIds.map((viewId) =>
      d
        .select({ e: alertEvaluation })
        .from(alertEvaluation)
        .innerJoin(savedQuery, eq(savedQuery.id, alertEvaluation.viewId))
        .where(and(eq(savedQuery.owner, owner), eq(alertEvaluation.viewId, viewId)))
        .orderBy(desc(alertEvaluation.at), desc(alertEvaluation.id))
        .limit(perView),
    ),
  )
  rows.flat().forEach(({ e }) => {
    const list = byView.get(e.viewId) ?? []
    list.push({
      ...e,
      at: e.at.toISOString(),
      windowStart: e.windowStart.toISOString(),
      windowEnd: e.windowEnd.toISOString(),
    })
    byView.set(e.viewId, list)
  })
  return byView
}
