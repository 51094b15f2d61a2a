import type { CurrentTenant } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbInt, decodeFirst } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const found = decodeFirst(Schema.Struct({ id: DbInt }))

/** What other features may read of reviews (moderation checks what a member reports). */
export class ReviewDirectory extends Effect.Service<ReviewDirectory>()("ReviewDirectory", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Whether review `id` is one of this community's published reviews (approved, not hidden): anyone reads them. */
    const exists = (id: number): Effect.Effect<boolean, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT id FROM reviews WHERE tenant_id = ${tenantId} AND id = ${id} AND approved AND NOT is_hidden`.pipe(
          found,
          Effect.map(Option.isSome)
        )
      )

    return { exists } as const
  })
}) {}
