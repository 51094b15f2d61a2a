import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { CurrentTenant, type TenantId } from "@timebank/domain"
import { Effect, type Schema } from "effect"
import { AppConfig } from "./AppConfig.js"
import { decodeFirst } from "./SqlRows.js"

/**
 * The one door to tenant-scoped SQL. Repos never take a tenant id as an argument: they read it here from the
 * request's `CurrentTenant`, so a query without a tenant does not compile.
 *
 * With `DB_TENANT_RLS=true` every scoped statement also runs in a transaction that carries
 * `app.tenant_id` (`set_config(..., true)`), so PostgreSQL row-level security policies can act as a second wall
 * without any change to feature code. Off by default so that plain reads stay one round trip.
 */
export class TenantSql extends Effect.Service<TenantSql>()("TenantSql", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const { tenantRls } = yield* AppConfig

    const carryTenant = (tenantId: TenantId) => sql`SELECT set_config('app.tenant_id', ${String(tenantId)}, true)`

    /** Runs `f(tenantId)` for the current tenant. SQL failures are defects: they are bugs or outages, not answers. */
    const query = <A, E, R>(f: (tenantId: TenantId) => Effect.Effect<A, E | SqlError, R>) =>
      Effect.flatMap(CurrentTenant, (tenant) =>
        tenantRls
          ? sql.withTransaction(Effect.zipRight(carryTenant(tenant.id), f(tenant.id)))
          : f(tenant.id)).pipe(dieOnSqlError)

    /** Runs `effect` in one transaction for the current tenant (nested calls become savepoints). */
    const transaction = <A, E, R>(effect: Effect.Effect<A, E | SqlError, R>) =>
      Effect.flatMap(
        CurrentTenant,
        (tenant) => sql.withTransaction(tenantRls ? Effect.zipRight(carryTenant(tenant.id), effect) : effect)
      ).pipe(dieOnSqlError)

    /** The row of `table` with `id` in the current tenant, decoded with `row` (SELECT *: the row is the table's). */
    const findById = <A, I>(table: string, row: Schema.Schema<A, I>) => {
      const first = decodeFirst(row)
      return (id: number) =>
        query((tenantId) => sql`SELECT * FROM ${sql(table)} WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(first))
    }

    return { sql, query, transaction, findById, tenantId: Effect.map(CurrentTenant, (t) => t.id) } as const
  })
}) {}

export const dieOnSqlError = <A, E, R>(
  effect: Effect.Effect<A, E | SqlError, R>
): Effect.Effect<A, Exclude<E, SqlError>, R> =>
  Effect.catchIf(effect, (e): e is SqlError => isSqlError(e), Effect.die) as never

const isSqlError = (e: unknown): e is SqlError =>
  typeof e === "object" && e !== null && "_tag" in e && (e as { _tag: unknown })._tag === "SqlError"
