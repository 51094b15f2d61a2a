import { SqlClient } from "@effect/sql"
import { PgClient } from "@effect/sql-pg"
import { Context, Duration, Effect, Exit, Option, Redacted, Runtime, Schedule } from "effect"
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { EmbeddedPostgresError, messageOf, unavailable } from "./EmbeddedPostgresBinaries.js"
import {
  ClusterBusy,
  clusterOf,
  hasCluster,
  initialise,
  launch,
  type Layout,
  PASSWORD,
  prepareLayout,
  stop,
  USER
} from "./EmbeddedPostgresCluster.js"

export { EmbeddedPostgresError, ensureBinariesHydrated } from "./EmbeddedPostgresBinaries.js"

/**
 * How a process uses the embedded PostgreSQL of its DATA_DIR. `serve` (the API): start it, publish its URL in
 * `DATA_DIR/database-url` while it runs, and refuse when another process already serves it. `share` (operator
 * commands, anything else): use the published server when one runs, else start a private one for the duration.
 */
export class EmbeddedPostgresRole extends Context.Reference<EmbeddedPostgresRole>()("EmbeddedPostgresRole", {
  defaultValue: (): "serve" | "share" => "share"
}) {}

export interface EmbeddedPostgresOptions {
  readonly dataDir: string
  readonly port: number
  readonly database: string
  readonly role: "serve" | "share"
}

/** The file, under DATA_DIR, holding the URL of the embedded server while a serving process runs it. */
export const URL_FILE = "database-url"

/** How long a start waits for another process that holds the cluster without publishing it (an operator command). */
const BUSY_RETRIES = 60
const BUSY_SPACING = Duration.millis(500)

const urlOf = (port: number, database: string) => `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/${database}`

const withClient = <A>(url: string, f: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(
    Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1, connectTimeout: Duration.seconds(3) }))
  )

/** The URL a serving process published, when that server answers. */
const publishedUrl = (urlFile: string) =>
  Effect.gen(function*() {
    // Missing, or unreadable (another OS user's server): either way not ours to use.
    const url = yield* Effect.try(() => readFileSync(urlFile, "utf8").trim()).pipe(Effect.orElseSucceed(() => ""))
    if (url === "") return Option.none<string>()
    const answer = yield* withClient(url, (sql) => sql`SELECT 1`).pipe(Effect.timeout(Duration.seconds(5)), Effect.exit)
    return Exit.isSuccess(answer) ? Option.some(url) : Option.none()
  })

const postmasterPid = (clusterDir: string) => {
  try {
    return readFileSync(join(clusterDir, "postmaster.pid"), "utf8").split("\n")[0]
  } catch {
    return undefined
  }
}

const writePrivately = (path: string, text: string) => {
  const partial = `${path}.${process.pid}`
  writeFileSync(partial, text, { mode: 0o600 })
  renameSync(partial, path)
}

/** Creates the application's database unless it exists (two processes may race: the loser finds it made). */
const ensureDatabase = (port: number, database: string) =>
  withClient(urlOf(port, "postgres"), (sql) => {
    const exists = Effect.map(sql`SELECT 1 FROM pg_database WHERE datname = ${database}`, (rows) => rows.length > 0)
    return Effect.unlessEffect(
      sql`CREATE DATABASE ${sql(database)}`.pipe(
        Effect.catchAll((error) => Effect.flatMap(exists, (made) => (made ? Effect.void : Effect.fail(error))))
      ),
      exists
    )
  })

/**
 * Starts a server of our own on the cluster and stops it when the scope closes; the serving role also writes its URL
 * to DATA_DIR/database-url (mode 0600) for the duration. A process that dies without running finalizers still stops
 * the server and removes the file on its way out.
 */
const startOwn = (planned: Layout, urlFile: string, options: EmbeddedPostgresOptions) =>
  Effect.gen(function*() {
    const publish = options.role === "serve"
    const layout = hasCluster(planned.clusterDir)
      ? planned
      : { ...planned, clusterDir: yield* initialise(planned), linkFrom: undefined }
    const runtime = yield* Effect.runtime<never>()
    const running = yield* Effect.acquireRelease(launch(layout, options.port), stop)
    let stopping = false
    // A process that ends without running finalizers (process.exit, a second Ctrl-C) still takes its server along.
    const onExit = () => {
      if (publish) rmSync(urlFile, { force: true })
      running.child.kill("SIGINT")
    }
    process.on("exit", onExit)
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        stopping = true
        process.off("exit", onExit)
      })
    )
    running.child.on("exit", (code, signal) => {
      if (stopping) return
      Runtime.runFork(runtime)(
        Effect.logError("embedded PostgreSQL exited").pipe(
          Effect.annotateLogs({ code, signal, log: running.lines.slice(-5).join("\n") })
        )
      )
    })
    yield* ensureDatabase(options.port, options.database).pipe(
      Effect.mapError((cause) =>
        unavailable(`the embedded PostgreSQL started but refused the connection (${messageOf(cause)})`, cause)
      )
    )
    const url = urlOf(options.port, options.database)
    if (publish) {
      yield* Effect.acquireRelease(
        Effect.sync(() => writePrivately(urlFile, `${url}\n`)),
        () => Effect.sync(() => rmSync(urlFile, { force: true }))
      )
    }
    return url
  })

/**
 * The embedded PostgreSQL of DATA_DIR for this process (see EmbeddedPostgresRole): its URL, the server stopped
 * (when it is ours) when the scope closes. Waits a while for a process that holds the cluster without publishing
 * it (an operator command) to finish.
 */
export const embeddedPostgres = (options: EmbeddedPostgresOptions) => {
  const urlFile = resolve(options.dataDir, URL_FILE)
  const attempt = Effect.gen(function*() {
    // First, as sharing it needs nothing else: no binaries, no OS user, not even a writable DATA_DIR.
    const published = yield* publishedUrl(urlFile)
    if (Option.isSome(published)) {
      if (options.role === "share") return { url: published.value, shared: true }
      const { clusterDir } = clusterOf(options.dataDir)
      return yield* unavailable(
        `embedded PostgreSQL in ${clusterDir} is already served by another process (URL in ${urlFile}): ` +
          `stop that npm start (or, if none runs any more, the server it left: kill ${
            postmasterPid(clusterDir) ?? "<postmaster pid>"
          }), set DATA_DIR elsewhere, or set DATABASE_URL to a PostgreSQL server`
      )
    }
    // Planned again on every attempt: another process may have made the cluster meanwhile.
    const layout = yield* Effect.try({
      try: () => prepareLayout(options.dataDir),
      catch: (cause) =>
        cause instanceof EmbeddedPostgresError ? cause : unavailable(
          `embedded PostgreSQL cannot start (${messageOf(cause)}): set DATABASE_URL to a PostgreSQL server`,
          cause
        )
    })
    if (layout.linkFrom !== undefined) {
      yield* Effect.logWarning(
        `the OS user "postgres" cannot reach ${layout.dataDir}, so the embedded cluster goes to ` +
          `${layout.clusterDir}, linked from ${layout.linkFrom}`
      )
    }
    return { url: yield* startOwn(layout, urlFile, options), shared: false }
  })
  return attempt.pipe(
    Effect.retry({
      while: (e) => e instanceof ClusterBusy,
      schedule: Schedule.spaced(BUSY_SPACING),
      times: BUSY_RETRIES
    }),
    Effect.mapError((e) => (e instanceof ClusterBusy ? unavailable(e.message) : e))
  )
}
