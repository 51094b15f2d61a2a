import { SqlClient } from "@effect/sql"
import { CurrentTenant } from "@timebank/domain"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { AppConfig } from "./AppConfig.js"
import { dieOnSqlError, TenantSql } from "./TenantSql.js"

/** A hot read run as a named prepared statement: its SQL, with `$1` the tenant id (unless it names no tenant). */
export interface PreparedRead {
  readonly name: string
  readonly text: string
}

/**
 * A prepared read of `text` (placeholders `$1`, `$2`, ...; `$1` is always the tenant id). Its name comes from the
 * text, so two shapes never share one and a connection keeps one statement per shape.
 */
export const preparedRead = (text: string): PreparedRead => ({
  name: `read_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`,
  text
})

/**
 * Hot reads (the public directory and listings) as named prepared statements: PostgreSQL parses and plans each
 * shape once per connection instead of on every request. For a page query with its owners and aggregates that
 * planning cost more than running it (pgbench on the directory query: 1,500 tps unprepared, 3,700 prepared).
 *
 * @effect/sql-pg sends every statement unnamed, so this borrows a pooled connection (`reserve`) and hands the `pg`
 * driver a query config with a name (its `query(config, values)` form); the connection goes back to the pool when
 * the read ends. With `DB_TENANT_RLS=true` the read takes TenantSql's path instead (a transaction carrying
 * `app.tenant_id`, unnamed), so row-level security sees every statement. Not for use inside a transaction: the
 * reserved connection is another one.
 */
export class PreparedReads extends Effect.Service<PreparedReads>()("PreparedReads", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const db = yield* TenantSql
    const { tenantRls } = yield* AppConfig

    // Uninterruptible: @effect/sql-pg's `reserve` gives no way to cancel a wait for a pooled connection, and a
    // request interrupted while waiting (its client hung up) would leave the connection it is then handed checked
    // out for good; under load the pool ran dry within seconds. A read runs for a millisecond or two, so an
    // abandoned one simply finishes and gives its connection back.
    const named = (read: PreparedRead, values: ReadonlyArray<unknown>) =>
      Effect.uninterruptible(Effect.scoped(
        Effect.flatMap(sql.reserve, (connection) =>
          // The driver takes `{ name, text }` where the connection's type says `string` (see the class comment).
          connection.executeRaw({ name: read.name, text: read.text } as unknown as string, values))
      )).pipe(Effect.map((result) => (result as { readonly rows: ReadonlyArray<unknown> }).rows))

    /** The rows `read` gives for the current tenant and `values` (`$2` onwards). SQL failures are defects. */
    const rows = (
      read: PreparedRead,
      values: ReadonlyArray<unknown>
    ): Effect.Effect<ReadonlyArray<unknown>, never, CurrentTenant> =>
      tenantRls
        ? db.query((tenantId) => sql.unsafe(read.text, [tenantId, ...values]))
        : Effect.flatMap(CurrentTenant, (tenant) => named(read, [tenant.id, ...values])).pipe(dieOnSqlError)

    /**
     * The rows of a read that names no tenant (a token lookup: the token names its tenant, which the caller
     * compares with the request's), with `values` from `$1`. SQL failures are defects.
     */
    const untenanted = (read: PreparedRead, values: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<unknown>> =>
      named(read, values).pipe(dieOnSqlError)

    return { rows, untenanted } as const
  })
}) {}
