import type { Fragment } from "@effect/sql/Statement"
import type { Role } from "@timebank/domain"
import { Effect } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { TenantSql } from "../platform/TenantSql.js"

/**
 * Sets of members as SQL, for features that write one row per member in a single `INSERT … SELECT` (notifications
 * fanning out to thousands). Each fragment is a sub-select of the current tenant's reachable members (active, not
 * erased) with the columns a delivery needs:
 * `user_id`, `email`, `language` (their `preferred_language`) and `preferences` (the `notification_preferences`
 * object, unset keys meaning "on"). Identity owns `users`; this is its published read of it.
 */
export class Audiences extends Effect.Service<Audiences>()("Audiences", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const reachable = (tenantId: number, condition: Fragment) =>
      sql`SELECT u.id AS user_id, u.email, u.preferred_language AS language,
                 u.notification_preferences AS preferences
          FROM users u
          WHERE u.tenant_id = ${tenantId} AND u.deleted_at IS NULL AND u.status = 'active' AND ${condition}`

    return {
      /** The members among `ids` (duplicates collapse: one row per member). */
      members: (ids: ReadonlyArray<number>) =>
        Effect.map(
          db.tenantId,
          (tenantId) => reachable(tenantId, sql`u.id = ANY(${pgArray([...new Set(ids)])}::bigint[])`)
        ),

      /**
       * The members among `ids` who opted in to federation (decisions D13a: only their data crosses to partners),
       * one row each; compare its count with the number of distinct ids to require all of them.
       */
      federated: (ids: ReadonlyArray<number>) =>
        Effect.map(db.tenantId, (tenantId) =>
          reachable(
            tenantId,
            sql`u.federation_opt_in AND u.id = ANY(${pgArray([...new Set(ids)])}::bigint[])`
          )),

      /** Every member holding one of `roles` (the admin fan-out: admin, broker, coordinator). */
      withRoles: (roles: ReadonlyArray<Role>) =>
        Effect.map(db.tenantId, (tenantId) => reachable(tenantId, sql`u.role = ANY(${pgArray(roles)}::text[])`))
    } as const
  })
}) {}
