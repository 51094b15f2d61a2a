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
