import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { createHash, randomBytes } from "node:crypto"
import pg from "pg"
import { type Errors, jsonOf, runInProcess } from "../cli/inProcess.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"

// In-process, as test/cli/ runs commands: test/cli.test.ts covers the CLI as a process of its own.
const TIMEOUT = 120_000

const cli = (databaseUrl: string, ...args: Array<string>) => runInProcess(databaseUrl, ...args)

class CliDatabase extends Context.Tag("CliDatabase")<CliDatabase, string>() {
  static readonly Live = Layer.scoped(CliDatabase, Effect.map(freshDatabase, (db) => db.url))
}

const query = (db: string, text: string, values: Array<unknown> = []) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: db })
    await client.connect()
    try {
      return (await client.query(text, values)).rows as Array<Record<string, unknown>>
    } finally {
      await client.end()
    }
  })

layer(CliDatabase.Live, { excludeTestServices: true, timeout: "120 seconds" })("cli jobs commands", (it) => {
  it.effect(
    "jobs list shows every job; jobs run NAME --tenant SLUG runs it for that tenant and prints the run",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const slug = `jobs-${randomBytes(4).toString("hex")}`
        const created = yield* cli(db, "tenant", "create", "--slug", slug, "--name", "Jobs Place", "--json")
        assert.strictEqual(created.code, 0, created.stderr)
        const tenantId = jsonOf<{ id: number }>(created).id
        // A member with an expired access token, as a login long ago left it (SQL: each command costs seconds).
        const [user] = yield* query(
          db,
          `INSERT INTO users (tenant_id, email, first_name, last_name, status, is_approved)
        VALUES ($1, $2, 'Tess', 'Token', 'active', true) RETURNING id::int`,
          [tenantId, `${slug}@example.org`]
        )
        const userId = user!["id"]
        yield* query(
          db,
          `WITH s AS (INSERT INTO auth_sessions (tenant_id, user_id, expires_at)
          VALUES ($1, $2, now() + interval '1 day') RETURNING id)
        INSERT INTO access_tokens (token_hash, session_id, expires_at)
        SELECT $3, id, now() - interval '1 hour' FROM s`,
          [tenantId, userId, createHash("sha256").update(randomBytes(16)).digest("hex")]
        )

        const [listed, listText, ran] = yield* Effect.all([
          cli(db, "jobs", "list", "--json"),
          cli(db, "jobs", "list"),
          cli(db, "jobs", "run", "tokens.purge", "--tenant", slug, "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(listed.code, 0, listed.stderr)
        const jobs = jsonOf<Array<{ id: string; description: string; schedule: string | null }>>(listed)
        assert.deepInclude(jobs.map(({ id, schedule }) => ({ id, schedule })), {
          id: "tokens.purge",
          schedule: "0 3 * * *"
        })
        assert.match(listText.stdout, /^JOB\s+SCHEDULE\s+DESCRIPTION/)
        assert.match(listText.stdout, /tokens\.purge\s+0 3 \* \* \*/)

        assert.strictEqual(ran.code, 0, ran.stderr)
        const run = jsonOf<Record<string, unknown>>(ran)
        assert.deepInclude(run, { job_id: "tokens.purge", trigger: "cli", status: "succeeded", items: 1, error: null })
        assert.isString(run["finished_at"])
        const left = yield* query(
          db,
          `SELECT count(*)::int AS n FROM access_tokens a JOIN auth_sessions s ON s.id = a.session_id
        WHERE s.user_id = $1`,
          [userId]
        )
        assert.strictEqual(left[0]!["n"], 0, "the expired token is gone")
        const rows = yield* query(db, "SELECT id::int, trigger, status, items FROM job_runs WHERE tenant_id = $1", [
          tenantId
        ])
        assert.deepStrictEqual(rows, [{ id: run["id"], trigger: "cli", status: "succeeded", items: 1 }])
      }),
    TIMEOUT
  )

  it.effect(
    "a run prints one line; an unknown job or tenant is NOT_FOUND (exit 3); missing arguments exit 2",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const [text, job, tenant, noTenant, noName] = yield* Effect.all([
          cli(db, "jobs", "run", "tokens.purge", "--tenant", "1"),
          cli(db, "jobs", "run", "no.such.job", "--tenant", "platform", "--json"),
          cli(db, "jobs", "run", "tokens.purge", "--tenant", "no-such-tenant", "--json"),
          cli(db, "jobs", "run", "tokens.purge", "--json"),
          cli(db, "jobs", "run", "--tenant", "platform", "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(text.code, 0, text.stderr)
        assert.match(
          text.stdout,
          /^run \d+ of tokens\.purge for tenant "platform": succeeded, 0 item\(s\), [\d.]+ s\n$/
        )
        for (const [run, what] of [[job, "Job"], [tenant, "Tenant"]] as const) {
          assert.strictEqual(run.code, 3, run.stderr)
          assert.deepStrictEqual(jsonOf<Errors>(run).errors, [{ code: "NOT_FOUND", message: `${what} not found` }])
        }
        for (const run of [noTenant, noName]) {
          assert.strictEqual(run.code, 2, run.stderr)
          assert.strictEqual(jsonOf<Errors>(run).errors[0]?.code, "USAGE_ERROR")
        }
        const runs = yield* query(db, "SELECT tenant_id::int, job_id FROM job_runs WHERE tenant_id = 1")
        assert.deepStrictEqual(runs, [{ tenant_id: 1, job_id: "tokens.purge" }], "the refused commands ran nothing")
      }),
    TIMEOUT
  )
})
