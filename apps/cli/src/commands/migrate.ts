import { SqlClient } from "@effect/sql"
import { migrations } from "@timebank/migrations"
import { runMigrations } from "@timebank/server"
import { Effect, Schema } from "effect"
import type { AnyCommand, Command } from "../Command.js"
import { ExitCode } from "../ExitCode.js"
import { table } from "../Render.js"

const label = (id: number, name: string) => `${String(id).padStart(4, "0")}_${name}`

const migrateUp = (name: string, summary: string): Command<"database"> => ({
  name,
  summary,
  details: "Processes that start together migrate one after another (an advisory lock); a running API is not " +
    "disturbed. npm start migrates too, so this is for deployments that migrate before they start.",
  positionals: [],
  options: [],
  examples: [name, `${name} --json`],
  needs: "database",
  run: () =>
    Effect.map(runMigrations.pipe(Effect.orDie), (ran) => ({
      json: { migrated: ran.map(([id, name]) => ({ id, name })) },
      text: ran.length === 0 ? "nothing to migrate" : `migrated: ${ran.map(([id, name]) => label(id, name)).join(", ")}`
    }))
})

export const migrate = migrateUp("migrate", "run the migrations that have not run yet")
export const migrateUpCommand = migrateUp("migrate up", "the same as migrate")

/** The migrations this build knows, `0001_tenants` → {id 1, name tenants}. */
const known = Object.keys(migrations).map((key) => {
  const [, id, name] = /^(\d+)_(.+)$/.exec(key)!
  return { id: Number(id), name: name! }
})

const AppliedRow = Schema.Struct({
  id: Schema.Number,
  name: Schema.String,
  applied_at: Schema.DateFromSelf
})

/** What the database ran, per the migrator's table (none when the table is not there yet). */
const applied = Effect.gen(function*() {
  const sql = yield* SqlClient.SqlClient
  const [table] = yield* sql<{ exists: boolean }>`SELECT to_regclass('effect_sql_migrations') IS NOT NULL AS exists`
  if (!table?.exists) return []
  const rows = yield* sql`
    SELECT migration_id AS id, name, created_at AS applied_at FROM effect_sql_migrations ORDER BY migration_id`
  return Schema.decodeUnknownSync(Schema.Array(AppliedRow))(rows)
}).pipe(Effect.orDie)

export const migrateStatus: Command<"database"> = {
  name: "migrate status",
  summary: "list the migrations, which have run and which are pending (changes nothing)",
  positionals: [],
  options: [],
  examples: ["migrate status", "migrate status --json && echo up to date"],
  exits: [[ExitCode.checkFailed, "migrations are pending: run migrate"]],
  needs: "database",
  run: () =>
    Effect.map(applied, (ran) => {
      const done = new Map(ran.map((m) => [m.id, m]))
      const pending = known.filter((m) => !done.has(m.id))
      // Ran by a newer build than this one: shown, never a reason to fail.
      const unknown = ran.filter((m) => !known.some((k) => k.id === m.id))
      const rows = [
        ...known.map((m) => [label(m.id, m.name), done.get(m.id)?.applied_at.toISOString() ?? "pending"]),
        ...unknown.map((m) => [label(m.id, m.name), `${m.applied_at.toISOString()} (not in this build)`])
      ]
      return {
        json: {
          up_to_date: pending.length === 0,
          applied: ran.map((m) => ({ id: m.id, name: m.name, applied_at: m.applied_at.toISOString() })),
          pending,
          unknown: unknown.map((m) => ({ id: m.id, name: m.name }))
        },
        text: `${table(["MIGRATION", "APPLIED"], rows)}\n` +
          (pending.length === 0 ? "up to date" : `${pending.length} pending: run npm run cli -- migrate`),
        exitCode: pending.length === 0 ? ExitCode.ok : ExitCode.checkFailed
      }
    })
}

export const migrateCommands: ReadonlyArray<AnyCommand> = [migrate, migrateUpCommand, migrateStatus]
