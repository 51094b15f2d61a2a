import type { CurrentTenant, UserId, UserSummary } from "@timebank/domain"
import { Effect } from "effect"
import { TenantSql } from "../platform/TenantSql.js"

/**
 * Names and avatars of members, for other features that show who owns or wrote something. Lists ask once per page
 * (`byIds` with every id of the page), never once per item.
 */
export class UserSummaries extends Effect.Service<UserSummaries>()("UserSummaries", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Summaries of the users of the current tenant among `ids` (erased users show their placeholder name). */
      byIds: (ids: ReadonlyArray<number>): Effect.Effect<ReadonlyMap<number, UserSummary>, never, CurrentTenant> => {
        const unique = [...new Set(ids)]
        return unique.length === 0
          ? Effect.succeed(new Map())
          : db.query((tenantId) =>
            sql<{ id: string; first_name: string; last_name: string; avatar_url: string | null }>`
              SELECT id, first_name, last_name, avatar_url FROM users
              WHERE tenant_id = ${tenantId} AND id = ANY(${unique as unknown as string}::bigint[])`.pipe(
              Effect.map((rows) =>
                new Map(rows.map((r) => {
                  const id = Number(r.id)
                  const summary: UserSummary = {
                    id: id as UserId,
                    first_name: r.first_name,
                    last_name: r.last_name,
                    avatar_url: r.avatar_url
                  }
                  return [id, summary] as const
                }))
              )
            )
          ).pipe(Effect.withSpan("UserSummaries.byIds"))
      }
    } as const
  })
}) {}
