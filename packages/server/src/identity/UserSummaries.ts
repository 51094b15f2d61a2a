import { type CurrentTenant, UserId, type UserSummary } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { dbId, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const SummaryRow = Schema.Struct({
  id: dbId(UserId),
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String)
})
const summaries = decodeRows(SummaryRow)

/**
 * For another feature's one-statement list page: a lateral join giving each row its owner's `first_name`,
 * `last_name` and `avatar_url` as `alias` (no row: a deleted user), so the page is one round trip while the users
 * table stays identity's. `$1` must be the tenant id. OFFSET 0 keeps it a primary-key lookup per row (the planner
 * would otherwise hash every user of the tenant).
 */
export const ownerSummaryJoin = (userIdColumn: string, alias: string) =>
  `LEFT JOIN LATERAL (
      SELECT first_name, last_name, avatar_url FROM users WHERE tenant_id = $1 AND id = ${userIdColumn} OFFSET 0
    ) ${alias} ON true`

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
      /**
       * Summaries of the users of the current tenant among `ids` (erased users show their placeholder name). Its
       * span captures no stack trace: this runs on every page of every list, and capturing one cost more than the
       * rest of the span.
       */
      byIds: (ids: ReadonlyArray<number>): Effect.Effect<ReadonlyMap<number, UserSummary>, never, CurrentTenant> => {
        const unique = [...new Set(ids)]
        return unique.length === 0
          ? Effect.succeed(new Map())
          : db.query((tenantId) =>
            sql`
              SELECT id, first_name, last_name, avatar_url FROM users
              WHERE tenant_id = ${tenantId} AND id = ANY(${unique as unknown as string}::bigint[])`.pipe(
              summaries,
              Effect.map((rows) =>
                new Map(rows.map((summary): readonly [number, UserSummary] => [summary.id, summary]))
              )
            )
          ).pipe(Effect.withSpan("UserSummaries.byIds", { captureStackTrace: false }))
      }
    } as const
  })
}) {}
