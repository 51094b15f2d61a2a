import type { Fragment } from "@effect/sql/Statement"
import { type CurrentTenant, GroupId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { GroupMemberRepo } from "./GroupMemberRepo.js"

/** A group as partners may see it, with its count of active members. */
export interface SharedGroup {
  readonly id: GroupId
  readonly name: string
  readonly description: string
  readonly location: string | null
  readonly member_count: number
  readonly created_at: Date
}

const GroupRow = Schema.Struct({
  id: dbId(GroupId),
  name: Schema.String,
  description: Schema.String,
  location: Schema.NullOr(Schema.String),
  created_at: DbDate
})
const groups = decodeRows(GroupRow)

/**
 * Groups' published read for federation (decisions D13a, "public groups of opted-in members"): public, active
 * groups whose owner is among `owners` (SQL of the owners' ids: identity's opted-in members). The owner speaks for
 * the group; its other members' names never cross, only their count.
 */
export class SharedGroups extends Effect.Service<SharedGroups>()("SharedGroups", {
  dependencies: [TenantSql.Default, GroupMemberRepo.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const memberRows = yield* GroupMemberRepo

    /**
     * Newest first, older than `before`; `limit` rows (the partial index `groups_federated`, migration 0016), with
     * the page's member counts in one more query.
     */
    const page = (
      owners: Fragment,
      q: { readonly before?: number | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<SharedGroup>, never, CurrentTenant> =>
      Effect.gen(function*() {
        const rows = yield* db.query((tenantId) =>
          sql`SELECT id, name, description, location, created_at FROM groups
              WHERE tenant_id = ${tenantId} AND deleted_at IS NULL AND visibility = 'public' AND status = 'active'
                AND owner_id IN (${owners}) ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
              ORDER BY id DESC LIMIT ${q.limit}`.pipe(groups)
        )
        const counts = yield* memberRows.activeCounts(rows.map((r) => r.id))
        return rows.map((row): SharedGroup => ({ ...row, member_count: counts.get(row.id) ?? 0 }))
      })

    return { page } as const
  })
}) {}
