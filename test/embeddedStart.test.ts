import { assert, describe, it } from "@effect/vitest"
import { URL_FILE } from "@timebank/server"
import { Effect } from "effect"
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "./fixtures/ports.js"
import { firstHealthAnswer, runCli, startApi, stopProcess } from "./fixtures/processes.js"

/**
 * A DATA_DIR of its own, removed afterwards with its cluster (which, when we are root, may live elsewhere behind
 * the DATA_DIR/pg link: a temp directory is mode 0700, out of the `postgres` OS user's reach).
 */
const tempDataDir = Effect.acquireRelease(
  Effect.sync(() => join(mkdtempSync(join(tmpdir(), "timebank-embedded-")), "data")),
  (dataDir) =>
    Effect.sync(() => {
      const cluster = join(dataDir, "pg")
      if (existsSync(cluster)) rmSync(realpathSync(cluster), { recursive: true, force: true })
      rmSync(join(dataDir, ".."), { recursive: true, force: true })
    })
)

/** Holds a TCP port on 127.0.0.1 for the scope, as another program would. */
const occupied = (port: number) =>
  Effect.acquireRelease(
    Effect.async<ReturnType<typeof createServer>>((resume) => {
      const server = createServer()
      server.listen(port, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

const TIMEOUT = 180_000

describe("embedded PostgreSQL (DATABASE_URL unset)", () => {
  it.scopedLive(
    "npm start serves it and publishes its URL; the CLI works beside it; a second server is refused; stop cleans up",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* tempDataDir
        const [port, dbPort] = yield* Effect.all([freePort, freePort])
        const env = { DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(dbPort), LOG_LEVEL: "WARN", HOST: "127.0.0.1" }
        const api = yield* startApi({ ...env, PORT: String(port) })
        assert.strictEqual(yield* firstHealthAnswer(api, port), 200)

        const urlFile = join(dataDir, URL_FILE)
        assert.strictEqual(
          readFileSync(urlFile, "utf8"),
          `postgres://postgres:postgres@127.0.0.1:${dbPort}/timebank\n`
        )
        assert.strictEqual(statSync(urlFile).mode & 0o777, 0o600)

        // The CLI, with nothing but the same DATA_DIR, works on the database the server runs.
        const slug = `beside-${dbPort}`
        const created = yield* runCli({ DATA_DIR: dataDir }, "tenant", "create", "--slug", slug, "--name", "Beside")
        assert.strictEqual(created.code, 0, created.stderr)
        const seen = yield* Effect.promise(() =>
          fetch(`http://127.0.0.1:${port}/api/v2/tenant`, { headers: { "x-tenant-slug": slug } })
        )
        assert.strictEqual(seen.status, 200)

        // A second server on the same DATA_DIR says so in one line instead of taking the database over.
        const second = yield* startApi({ ...env, PORT: String(yield* freePort) })
        assert.strictEqual(yield* second.exited, 1)
        assert.match(second.stderr(), /^error: embedded PostgreSQL in .* is already served by another process .*\n$/)

        assert.strictEqual(yield* stopProcess(api), 0, api.stderr())
        assert.isFalse(existsSync(urlFile), "the URL file goes with the server")

        // With no server running, the CLI starts the embedded PostgreSQL for itself (and publishes nothing).
        const listed = yield* runCli(
          { DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(dbPort) },
          "tenant",
          "list",
          "--json"
        )
        assert.strictEqual(listed.code, 0, listed.stderr)
        assert.include((JSON.parse(listed.stdout) as Array<{ slug: string }>).map((t) => t.slug), slug)
        assert.isFalse(existsSync(urlFile))
      }),
    TIMEOUT
  )

  it.scopedLive(
    "a port another program holds is one line naming what to set, and exit status 1",
    () =>
      Effect.gen(function*() {
        const dataDir = yield* tempDataDir
        const [port, dbPort] = yield* Effect.all([freePort, freePort])
        yield* occupied(dbPort)
        const env = { DATA_DIR: dataDir, EMBEDDED_DB_PORT: String(dbPort), LOG_LEVEL: "WARN" }
        const api = yield* startApi({ ...env, PORT: String(port) })
        assert.strictEqual(yield* api.exited, 1)
        assert.strictEqual(
          api.stderr(),
          `error: embedded PostgreSQL cannot listen on 127.0.0.1:${dbPort}, another program uses that port: ` +
            "set EMBEDDED_DB_PORT to a free port, or DATABASE_URL to a PostgreSQL server\n"
        )
        const cli = yield* runCli(env, "tenant", "list", "--json")
        assert.strictEqual(cli.code, 1)
        assert.deepStrictEqual(JSON.parse(cli.stdout), {
          errors: [{ code: "DATABASE_UNAVAILABLE", message: api.stderr().slice("error: ".length, -1) }]
        })
      }),
    TIMEOUT
  )
})
