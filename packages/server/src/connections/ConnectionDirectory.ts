import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const UserIdRow = Schema.Struct({ user_id: DbInt })

/** What other features may ask about members' connections (the feed ranks a viewer's connections' posts). */
export class ConnectionDirectory extends Effect.Service<ConnectionDirectory>()("ConnectionDirectory", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Which of `userIds` the member has an accepted connection with, either way round: one query. */
    const connectedAmong = (userId: number, userIds: ReadonlyArray<number>) => {
      const others = [...new Set(userIds)].filter((id) => id !== userId)
      if (others.length === 0) return Effect.succeed<ReadonlySet<number>>(new Set())
      return db.query((tenantId) =>
        sql`SELECT target_id AS user_id FROM connections
            WHERE tenant_id = ${tenantId} AND requester_id = ${userId} AND status = 'accepted'
              AND target_id = ANY(${pgArray(others)}::bigint[])
            UNION
            SELECT requester_id FROM connections
            WHERE tenant_id = ${tenantId} AND target_id = ${userId} AND status = 'accepted'
              AND requester_id = ANY(${pgArray(others)}::bigint[])`.pipe(
          decodeRows(UserIdRow),
          Effect.map((rows): ReadonlySet<number> => new Set(rows.map((r) => r.user_id)))
        )
      )
    }

    return { connectedAmong } as const
  })
}) {}
