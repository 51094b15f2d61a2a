import { type CurrentTenant, type NotificationCounts, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { dbId, DbInt, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { bellCounts } from "../BellRepo.js"

const countRows = decodeRows(Schema.Struct({ user_id: dbId(UserId), category: Schema.String, n: DbInt }))

/** What realtime reads beyond single bells: the counts of many members at once. */
export class RealtimeRepo extends Effect.Service<RealtimeRepo>()("RealtimeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Unread counts of each member (index `notifications_unread`), in one query whatever their number. */
    const countsFor = (
      userIds: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, NotificationCounts>, never, CurrentTenant> =>
      userIds.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT user_id, category, count(*)::int AS n FROM notifications
              WHERE tenant_id = ${tenantId} AND user_id = ANY(${pgArray(userIds)}::bigint[]) AND NOT is_read
              GROUP BY user_id, category`.pipe(
            countRows,
            Effect.map((rows) => {
              const byUser = new Map<number, Array<(typeof rows)[number]>>(userIds.map((userId) => [userId, []]))
              for (const row of rows) byUser.get(row.user_id)?.push(row)
              return new Map([...byUser].map(([userId, own]) => [userId, bellCounts(own)]))
            })
          )
        )

    return { countsFor } as const
  })
}) {}
