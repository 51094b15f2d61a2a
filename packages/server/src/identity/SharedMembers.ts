import type { Fragment } from "@effect/sql/Statement"
import { type CurrentTenant, UserId } from "@timebank/domain"
import { Effect, type Option, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { dbId, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** What a partner may see of a member who opted in to federation (decisions D13a, "What crosses"). */
export const SharedMemberRow = Schema.Struct({
  id: dbId(UserId),
  first_name: Schema.String,
  last_name: Schema.String,
  avatar_url: Schema.NullOr(Schema.String),
  bio: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String)
})
export type SharedMember = typeof SharedMemberRow.Type

const members = decodeRows(SharedMemberRow)
const firstMember = decodeFirst(SharedMemberRow)

/**
 * Identity's published read of the members whose data may cross to partners: `federation_opt_in` set and able to
 * act here (active, approved, not erased). Never e-mail, phone, role or balance. The opted-in set is also offered as
 * SQL (`optedInIds`), so that other features filter their own lists on it in one query (listings and groups of
 * opted-in members), as `Audiences` does for notifications.
 */
export class SharedMembers extends Effect.Service<SharedMembers>()("SharedMembers", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    // Served by the partial index `users_federated` (migration 0016).
    const optedIn = (tenantId: number) =>
      sql`tenant_id = ${tenantId} AND federation_opt_in AND status = 'active' AND is_approved
          AND deleted_at IS NULL`

    const columns = sql`id, first_name, last_name, avatar_url, bio, location`

    /** SQL for `IN (...)`: the ids of the current community's opted-in members. */
    const optedInIds: Effect.Effect<Fragment, never, CurrentTenant> = Effect.map(
      db.tenantId,
      (tenantId) => sql`SELECT id FROM users WHERE ${optedIn(tenantId)}`
    )

    /** Opted-in members, newest first, older than `before` (the cursor); `limit` rows. */
    const page = (
      q: { readonly before?: number | undefined; readonly limit: number }
    ): Effect.Effect<ReadonlyArray<SharedMember>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM users
            WHERE ${optedIn(tenantId)} ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
            ORDER BY id DESC LIMIT ${q.limit}`.pipe(members)
      )

    /** The opted-in member with that id; none for anyone else (not opted in, inactive, another community's). */
    const find = (id: number): Effect.Effect<Option.Option<SharedMember>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM users WHERE ${optedIn(tenantId)} AND id = ${id}`.pipe(firstMember)
      )

    /** The opted-in members among `ids`, by id, in one query (a page's owners, organisers or reviewers). */
    const byIds = (
      ids: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, SharedMember>, never, CurrentTenant> => {
      const unique = [...new Set(ids)]
      return unique.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT ${columns} FROM users
              WHERE ${optedIn(tenantId)} AND id = ANY(${pgArray(unique)}::bigint[])`.pipe(
            members,
            Effect.map((rows) => new Map(rows.map((row) => [row.id, row])))
          )
        )
    }

    return { optedInIds, page, find, byIds } as const
  })
}) {}
