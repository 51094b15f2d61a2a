import { SqlClient, SqlError } from "@effect/sql"
import { CurrentTenant } from "@timebank/domain"
import { Effect, FiberRef } from "effect"
import { createHash } from "node:crypto"
import { AppConfig } from "./AppConfig.js"
import { PgPool } from "./Database.js"
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
 * @effect/sql-pg sends every statement unnamed, so these go to the process's `pg` pool (PgPool) directly, as a query
 * config with a name; the pool lends a connection for the statement and takes it back. An interrupted read (its
 * client hung up) simply finishes and returns its connection. With `DB_TENANT_RLS=true` the read takes TenantSql's
 * path instead (a transaction carrying `app.tenant_id`, unnamed), so row-level security sees every statement. Not
 * for use inside a transaction: the pool lends another connection.
 */
export class PreparedReads extends Effect.Service<PreparedReads>()("PreparedReads", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const pool = yield* PgPool
    const db = yield* TenantSql
    const { tenantRls } = yield* AppConfig

    const query = (read: PreparedRead, values: ReadonlyArray<unknown>) =>
      Effect.async<ReadonlyArray<unknown>, SqlError.SqlError>((resume) => {
        pool.query({ name: read.name, text: read.text, values: [...values] }, (cause, result) => {
          resume(
            cause
              ? Effect.fail(new SqlError.SqlError({ cause, message: "Failed to execute statement" }))
              : Effect.succeed(result.rows)
          )
        })
      })

    // The statement's span as @effect/sql would make it, only while a tracer records: an untraced process (every
    // bench, any deployment without OTEL_EXPORTER_OTLP_ENDPOINT) pays for none.
    const named = (read: PreparedRead, values: ReadonlyArray<unknown>) =>
      Effect.flatMap(FiberRef.get(FiberRef.currentTracerEnabled), (traced) =>
        traced
          ? Effect.withSpan(query(read, values), "sql.execute", {
            kind: "client",
            attributes: { "db.system.name": "postgresql", "db.operation.name": "execute", "db.query.text": read.text },
            captureStackTrace: false
          })
          : query(read, values))

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
