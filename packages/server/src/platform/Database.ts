import { NodeContext } from "@effect/platform-node"
import { SqlClient, SqlError } from "@effect/sql"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { migrations } from "@timebank/migrations"
import { Context, Duration, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "./AppConfig.js"
import { embeddedPostgres, EmbeddedPostgresRole } from "./EmbeddedPostgres.js"

/** Key of the advisory lock that lets exactly one process migrate at a time. */
const MIGRATION_LOCK = 7_246_118_301

/**
 * The `application_name` of the process's connections: a socket-mode runner names its address, so that
 * `pg_stat_activity` and `pg_locks` (the cluster's shard locks are advisory locks) say which runner holds what.
 */
export const applicationNameOf = (config: Pick<AppConfig, "clusterMode" | "runnerHost" | "runnerPort">) =>
  config.clusterMode === "socket" ? `timebank runner ${config.runnerHost}:${config.runnerPort}` : "timebank"

/**
 * The process's `pg` pool. @effect/sql runs on it, and so do the prepared hot reads (PreparedReads), which hand it a
 * named query directly: a borrowed connection through `sql.reserve` (a scope, a finalizer, a cancel handler) cost
 * them more CPU than the statement itself.
 */
export class PgPool extends Context.Tag("PgPool")<PgPool, pg.Pool>() {}

export interface PgOptions {
  readonly url: Redacted.Redacted
  readonly maxConnections: number
  readonly applicationName?: string | undefined
}

/** How long the first connection may take before start-up fails (as @effect/sql-pg's own layer waits). */
const CONNECT_TIMEOUT = Duration.seconds(5)

/** A pool whose first connection works, ended (at most a second's wait) when the scope closes. */
const openPool = (options: PgOptions) =>
  Effect.gen(function*() {
    const pool = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const created = new pg.Pool({
          connectionString: Redacted.value(options.url),
          max: options.maxConnections,
          application_name: options.applicationName ?? "timebank"
        })
        // A pooled connection that dies while idle is replaced on next use; the error must not crash the process.
        created.on("error", () => {})
        return created
      }),
      (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    yield* Effect.tryPromise({
      try: () => pool.query("SELECT 1"),
      catch: (cause) => new SqlError.SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(Effect.timeoutFail({
      duration: CONNECT_TIMEOUT,
      onTimeout: () =>
        new SqlError.SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
    }))
    return pool
  })

/** SqlClient (and PgClient) on a pool of our own, which PgPool hands to the prepared reads. */
export const pgLayer = (
  options: PgOptions
): Layer.Layer<PgClient.PgClient | SqlClient.SqlClient | PgPool, SqlError.SqlError> =>
  Layer.unwrapScoped(Effect.map(openPool(options), (pool) =>
    Layer.merge(
      PgClient.layerFromPool({ acquire: Effect.succeed(pool), applicationName: options.applicationName }),
      Layer.succeed(PgPool, pool)
    )))

/**
 * PostgreSQL from `DATABASE_URL`, or — when it is unset — the embedded PostgreSQL server kept in `DATA_DIR`, used
 * as this process's EmbeddedPostgresRole says (the API serves it; operator commands share the running one).
 */
export const SqlLive = Layer.unwrapScoped(Effect.gen(function*() {
  const config = yield* AppConfig
  const { source, url } = Option.isSome(config.databaseUrl)
    ? { url: config.databaseUrl.value, source: "DATABASE_URL" }
    : yield* Effect.map(
      embeddedPostgres({
        dataDir: config.dataDir,
        port: config.embeddedDbPort,
        database: "timebank",
        role: yield* EmbeddedPostgresRole
      }),
      ({ shared, url }) => ({
        url: Redacted.make(url),
        source: `embedded (${config.dataDir}${shared ? ", served by a running process" : ""})`
      })
    )
  yield* Effect.annotateLogs(Effect.logInfo("database"), { source })
  return pgLayer({ url, maxConnections: config.dbPoolSize, applicationName: applicationNameOf(config) })
}))

/**
 * Runs the forward-only migrations in `migrations/`. The whole run holds a transaction-scoped advisory lock, so
 * processes that start together migrate one after another and the later ones find nothing left to do.
 */
export const runMigrations = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  return yield* sql.withTransaction(Effect.gen(function*() {
    yield* sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`
    // The migrator probes for its table with a query that fails when the table is missing, which would abort our
    // enclosing transaction; creating it here (same shape) keeps the probe from failing.
    yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
      migration_id integer PRIMARY KEY,
      created_at timestamp with time zone NOT NULL DEFAULT now(),
      name text NOT NULL
    )`
    return yield* PgMigrator.run({ loader: PgMigrator.fromRecord(migrations) })
  }))
}).pipe(Effect.provide(NodeContext.layer), Effect.withSpan("Database.migrate"))

/**
 * Runs `effect` holding the migration lock (a session-level advisory lock on a connection of its own, so that
 * `effect` may use the pool freely, in and out of transactions): schema work that is not ours — the cluster's
 * tables — then happens one process at a time, like our migrations.
 */
export const withMigrationLock = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    return yield* Effect.scoped(Effect.gen(function*() {
      const connection = yield* sql.reserve
      yield* Effect.acquireRelease(
        connection.executeRaw("SELECT pg_advisory_lock($1)", [MIGRATION_LOCK]),
        () => Effect.ignore(connection.executeRaw("SELECT pg_advisory_unlock($1)", [MIGRATION_LOCK]))
      )
      return yield* effect
    }))
  })

export const MigrationsLive = Layer.effectDiscard(
  runMigrations.pipe(
    Effect.tap((ran) =>
      ran.length > 0 ? Effect.logInfo(`migrated: ${ran.map(([id, name]) => `${id}_${name}`).join(", ")}`) : Effect.void
    )
  )
)

/** The database, migrated. */
export const DatabaseLive = MigrationsLive.pipe(Layer.provideMerge(SqlLive))
