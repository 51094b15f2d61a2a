import { assert, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { type Errors, jsonOf, query } from "./cli/inProcess.js"
import { runCli } from "./fixtures/processes.js"
import { freshDatabase } from "./fixtures/TestDatabase.js"

// The CLI as the operator's shell and scripts see it: a process of its own, its exit status and what it prints on
// stdout and stderr. Each start costs seconds, so the commands themselves are tested in-process (test/cli/).

/** Runs `npm run cli -- ...args` as the operator would, on the given database. */
const cli = (databaseUrl: string, ...args: Array<string>) => runCli({ DATABASE_URL: databaseUrl }, ...args)

class CliDatabase extends Context.Tag("CliDatabase")<CliDatabase, string>() {
  static readonly Live = Layer.scoped(CliDatabase, Effect.map(freshDatabase, (db) => db.url))
}

layer(CliDatabase.Live, { excludeTestServices: true, timeout: "240 seconds" })("cli as a process", (it) => {
  it.effect(
    "exit statuses scripts can trust: 0 with one JSON document, 2 usage, 4 check failed; a CSV file on stdout",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const slug = `cli-${randomBytes(4).toString("hex")}`
        const [created, unknown] = yield* Effect.all([
          cli(db, "tenant", "create", "--slug", slug, "--name", "Process Place", "--json"),
          cli(db, "frobnicate", "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(created.code, 0, created.stderr)
        assert.strictEqual(created.stderr, "")
        const tenant = jsonOf<{ id: number; slug: string }>(created)
        assert.strictEqual(tenant.slug, slug)
        assert.strictEqual(unknown.code, 2)
        assert.strictEqual(
          unknown.stderr,
          "error: unknown command: frobnicate\nhint: the commands: npm run cli -- --help\n"
        )
        assert.deepStrictEqual(jsonOf<Errors>(unknown).errors, [
          { code: "USAGE_ERROR", message: "unknown command: frobnicate" }
        ])

        // One balanced grant, written the way the ledger writes it, then a cached balance that disagrees.
        yield* query(
          db,
          `WITH acc AS (INSERT INTO ledger_accounts (tenant_id, kind, owner_id, balance)
                        VALUES ($1, 'treasury', NULL, -2), ($1, 'organisation', 1, 2) RETURNING id, kind),
                tx AS (INSERT INTO ledger_transactions (tenant_id, type, amount, idempotency_key, request_hash)
                       VALUES ($1, 'grant', 2, 'cli-test', 'h') RETURNING id)
           INSERT INTO ledger_entries (tenant_id, transaction_id, account_id, amount)
           SELECT $1, tx.id, acc.id, CASE WHEN acc.kind = 'treasury' THEN -2 ELSE 2 END FROM tx, acc`,
          [tenant.id]
        )
        yield* query(db, "UPDATE ledger_accounts SET balance = 5 WHERE tenant_id = $1 AND kind = 'organisation'", [
          tenant.id
        ])
        const [broken, csv] = yield* Effect.all([
          cli(db, "ledger", "verify", "--tenant", slug),
          cli(db, "report", "export", "social-value", "--tenant", slug, "--from", "2026-01-01", "--to", "2026-03-31")
        ], { concurrency: "unbounded" })
        assert.strictEqual(broken.code, 4)
        assert.match(broken.stdout, /^PROBLEMS FOUND \(1\): 1 transactions, 2 accounts in tenant/)
        assert.match(broken.stdout, /balance 5\.00, entries 2\.00/)
        assert.strictEqual(csv.code, 0, csv.stderr)
        assert.strictEqual(
          csv.stdout,
          "from,to,hours,hourly_value,currency,value\r\n2026-01-01,2026-03-31,0,0,EUR,0\r\n"
        )
      }),
    240_000
  )
})
