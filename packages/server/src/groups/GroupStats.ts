import type { CurrentTenant } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbInt, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const Count = Schema.Struct({ n: DbInt })

/** Aggregates of groups for the admin dashboard. */
export class GroupStats extends Effect.Service<GroupStats>()("GroupStats", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    /** Groups (not deleted) waiting for an admin's review (decisions D17, groups admin approvals). */
    const pendingReview: Effect.Effect<number, never, CurrentTenant> = db.query((tenantId) =>
      sql`SELECT count(*)::int AS n FROM groups
          WHERE tenant_id = ${tenantId} AND status = 'pending_review' AND deleted_at IS NULL`.pipe(
        decodeSingle(Count),
        Effect.map((row) => row.n)
      )
    )

    return { pendingReview } as const
  })
}) {}
