import {
  type CurrentTenant,
  NOTIFICATION_CATEGORIES,
  type NotificationCategory,
  type NotificationCounts,
  NotificationId,
  UserId
} from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A row of `notifications`: the one read shape of a bell, for the list, the detail and the grouped inbox. */
export const BellRow = Schema.Struct({
  id: dbId(NotificationId),
  user_id: dbId(UserId),
  type: Schema.String,
  category: Schema.String,
  title: Schema.String,
  message: Schema.String,
  link: Schema.NullOr(Schema.String),
  actor_id: Schema.NullOr(dbId(UserId)),
  group_key: Schema.String,
  is_read: Schema.Boolean,
  read_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type BellRow = typeof BellRow.Type

const BELL_COLUMNS =
  "id, user_id, type, category, title, message, link, actor_id, group_key, is_read, read_at, created_at"

export interface BellListQuery {
  readonly category?: NotificationCategory | undefined
  readonly unreadOnly: boolean
  /** Ids below this one (the cursor). */
  readonly before?: number | undefined
  readonly limit: number
}

/** How many items the grouped inbox folds (decisions D12). */
export const GROUPED_WINDOW = 200

const bells = decodeRows(BellRow)
const firstBell = decodeFirst(BellRow)
const affected = decodeRows(Schema.Struct({ id: DbInt }))
const countRows = decodeRows(Schema.Struct({ category: Schema.String, n: DbInt }))
const CATEGORY_SET: ReadonlySet<string> = new Set(NOTIFICATION_CATEGORIES)

/** Unread rows per stored category → D12a's counts: every category, `other`, and `total` their sum. */
export const bellCounts = (
  rows: ReadonlyArray<{ readonly category: string; readonly n: number }>
): NotificationCounts => {
  const counts = Object.fromEntries([...NOTIFICATION_CATEGORIES, "other"].map((c) => [c, 0])) as Record<string, number>
  let total = 0
  for (const { category, n } of rows) {
    counts[CATEGORY_SET.has(category) ? category : "other"]! += n
    total += n
  }
  return { ...counts, total } as NotificationCounts
}

/** One member's bells. Every statement names the tenant and the member: another's item is simply not there. */
export class BellRepo extends Effect.Service<BellRepo>()("BellRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.unsafe(BELL_COLUMNS)

    const mine = (tenantId: number, userId: number) => sql`tenant_id = ${tenantId} AND user_id = ${userId}`

    return {
      /** Newest first (index `notifications_inbox` / `notifications_category`); `limit` + 1 rows tell of more. */
      list: (userId: number, q: BellListQuery) =>
        db.query((tenantId) => {
          const conditions = [mine(tenantId, userId)]
          if (q.category !== undefined) conditions.push(sql`category = ${q.category}`)
          if (q.unreadOnly) conditions.push(sql`NOT is_read`)
          if (q.before !== undefined) conditions.push(sql`id < ${q.before}`)
          return sql`SELECT ${columns} FROM notifications WHERE ${sql.and(conditions)}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(bells)
        }),

      /** The latest {@link GROUPED_WINDOW} items, newest first, for the grouped inbox to fold. */
      latest: (userId: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM notifications WHERE ${mine(tenantId, userId)}
              ORDER BY id DESC LIMIT ${GROUPED_WINDOW}`.pipe(bells)
        ),

      find: (userId: number, id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM notifications WHERE ${mine(tenantId, userId)} AND id = ${id}`.pipe(firstBell)
        ),

      /** Bells by id whoever owns them (realtime and push read the bells a dispatch just made). */
      byIds: (ids: ReadonlyArray<number>) =>
        ids.length === 0
          ? Effect.succeed([] as ReadonlyArray<BellRow>)
          : db.query((tenantId) =>
            sql`SELECT ${columns} FROM notifications
                WHERE tenant_id = ${tenantId} AND id = ANY(${pgArray(ids)}::bigint[]) ORDER BY id`.pipe(bells)
          ),

      counts: (userId: number): Effect.Effect<NotificationCounts, never, CurrentTenant> =>
        db.query((tenantId) =>
          sql`SELECT category, count(*)::int AS n FROM notifications
              WHERE ${mine(tenantId, userId)} AND NOT is_read GROUP BY category`.pipe(countRows, Effect.map(bellCounts))
        ),

      markRead: (userId: number, id: number) =>
        db.query((tenantId) =>
          sql`UPDATE notifications SET is_read = true, read_at = coalesce(read_at, now())
              WHERE ${mine(tenantId, userId)} AND id = ${id}
              RETURNING ${columns}`.pipe(firstBell)
        ),

      markAllRead: (userId: number) =>
        db.query((tenantId) =>
          sql`UPDATE notifications SET is_read = true, read_at = now()
              WHERE ${mine(tenantId, userId)} AND NOT is_read RETURNING id`.pipe(affected, Effect.map((r) => r.length))
        ),

      markGroupRead: (userId: number, groupKey: string) =>
        db.query((tenantId) =>
          sql`UPDATE notifications SET is_read = true, read_at = now()
              WHERE ${mine(tenantId, userId)} AND group_key = ${groupKey} AND NOT is_read
              RETURNING id`.pipe(affected, Effect.map((r) => r.length))
        ),

      remove: (userId: number, id: number) =>
        db.query((tenantId) =>
          sql`DELETE FROM notifications WHERE ${mine(tenantId, userId)} AND id = ${id} RETURNING id`.pipe(
            affected,
            Effect.map((r) => r.length > 0)
          )
        ),

      removeCategory: (userId: number, category: NotificationCategory) =>
        db.query((tenantId) =>
          sql`DELETE FROM notifications WHERE ${mine(tenantId, userId)} AND category = ${category}
              RETURNING id`.pipe(affected, Effect.map((r) => r.length))
        )
    } as const
  })
}) {}
