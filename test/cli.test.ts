import { assert, describe, it, layer } from "@effect/vitest"
import { verifyPassword } from "@timebank/server"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import pg from "pg"
import { runCli } from "./fixtures/processes.js"
import { freshDatabase } from "./fixtures/TestDatabase.js"

interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `npm run cli -- ...args` as the operator would, on the given database. */
const cli = (databaseUrl: string, ...args: Array<string>) => runCli({ DATABASE_URL: databaseUrl }, ...args)

/** The one JSON document the command printed (fails when stdout holds anything else). */
const jsonOf = <A>(run: CliRun): A => JSON.parse(run.stdout) as A

interface TenantJson {
  readonly id: number
  readonly slug: string
  readonly name: string
  readonly domain: string | null
  readonly status: string
  readonly timezone: string
  readonly features: Record<string, boolean>
  readonly settings: Record<string, unknown>
  readonly created_at: string
}

type Errors = { readonly errors: ReadonlyArray<{ code: string; message: string; field?: string }> }

const uniqueSlug = () => `cli-${randomBytes(4).toString("hex")}`

class CliDatabase extends Context.Tag("CliDatabase")<CliDatabase, string>() {
  static readonly Live = Layer.scoped(CliDatabase, Effect.map(freshDatabase, (db) => db.url))
}

const TIMEOUT = 60_000

layer(CliDatabase.Live, { excludeTestServices: true, timeout: "60 seconds" })("cli tenant commands", (it) => {
  it.effect(
    "tenant create --json prints the tenant; the same slug again is ALREADY_EXISTS; list shows both",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const slug = uniqueSlug()
        const created = yield* cli(
          db,
          ...["tenant", "create", "--slug", slug, "--name", "Riverside", "--timezone", "Europe/Berlin"],
          ...["--features", "{\"federation\":true,\"blog\":false}", "--settings", "{\"starting_balance\":3}", "--json"]
        )
        assert.strictEqual(created.code, 0, created.stderr)
        const tenant = jsonOf<TenantJson>(created)
        assert.deepStrictEqual(
          Object.keys(tenant).sort(),
          ["created_at", "domain", "features", "id", "name", "settings", "slug", "status", "timezone", "updated_at"]
        )
        assert.include(tenant, { slug, name: "Riverside", domain: null, status: "active", timezone: "Europe/Berlin" })
        assert.include(tenant.features, { federation: true, blog: false, events: true })
        assert.include(tenant.settings, { starting_balance: 3, registration_requires_approval: true })
        assert.isFalse(Number.isNaN(Date.parse(tenant.created_at)))

        const again = yield* cli(db, "tenant", "create", "--slug", slug, "--name", "Other", "--json")
        assert.strictEqual(again.code, 1)
        assert.deepInclude(jsonOf<Errors>(again).errors[0], { code: "ALREADY_EXISTS", field: "slug" })

        const listed = yield* cli(db, "tenant", "list", "--json")
        assert.strictEqual(listed.code, 0, listed.stderr)
        const slugs = jsonOf<Array<TenantJson>>(listed).map((t) => t.slug)
        assert.strictEqual(slugs[0], "platform")
        assert.include(slugs, slug)
      }),
    TIMEOUT
  )

  it.effect("bad input is VALIDATION_ERROR with exit 1, in words on stderr or as JSON", () =>
    Effect.gen(function*() {
      const db = yield* CliDatabase
      const [badSlug, unknownFeature, brokenJson] = yield* Effect.all([
        cli(db, "tenant", "create", "--slug", "Not Valid", "--name", "X"),
        cli(db, "tenant", "create", "--slug", uniqueSlug(), "--name", "X", "--features", "{\"nope\":true}", "--json"),
        cli(db, "tenant", "create", "--slug", uniqueSlug(), "--name", "X", "--settings", "{nope", "--json")
      ], { concurrency: "unbounded" })
      assert.strictEqual(badSlug.code, 1)
      assert.strictEqual(badSlug.stdout, "")
      assert.match(badSlug.stderr, /^error: VALIDATION_ERROR: .+ \(field slug\)$/m)
      assert.strictEqual(unknownFeature.code, 1)
      assert.deepInclude(jsonOf<Errors>(unknownFeature).errors[0], { code: "VALIDATION_ERROR", field: "features.nope" })
      assert.strictEqual(brokenJson.code, 1)
      assert.deepStrictEqual(jsonOf<Errors>(brokenJson).errors, [
        { code: "VALIDATION_ERROR", message: "is not valid JSON", field: "settings" }
      ])
    }), TIMEOUT)

  it.effect(
    "tenant update --status suspended changes the tenant; an unknown id is NOT_FOUND",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const created = jsonOf<TenantJson>(
          yield* cli(db, "tenant", "create", "--slug", uniqueSlug(), "--name", "To Suspend", "--json")
        )
        const [updated, missing] = yield* Effect.all([
          cli(db, "tenant", "update", String(created.id), "--status", "suspended", "--json"),
          cli(db, "tenant", "update", "999999", "--name", "Nobody", "--json")
        ], { concurrency: "unbounded" })
        assert.strictEqual(updated.code, 0, updated.stderr)
        assert.include(jsonOf<TenantJson>(updated), { id: created.id, status: "suspended", name: "To Suspend" })
        assert.strictEqual(missing.code, 1)
        assert.strictEqual(jsonOf<Errors>(missing).errors[0]?.code, "NOT_FOUND")
      }),
    TIMEOUT
  )

  it.effect("seed demo is idempotent: twice gives the same tenant", () =>
    Effect.gen(function*() {
      const db = yield* CliDatabase
      const first = yield* cli(db, "seed", "demo", "--json")
      const second = yield* cli(db, "seed", "demo", "--json")
      assert.strictEqual(first.code, 0, first.stderr)
      assert.strictEqual(second.code, 0, second.stderr)
      assert.strictEqual(jsonOf<TenantJson>(first).slug, "demo")
      assert.strictEqual(jsonOf<TenantJson>(second).id, jsonOf<TenantJson>(first).id)
      // The demo admin comes with it, once (its credentials are printed at npm start and in the README).
      const admin = jsonOf<{ admin: { id: number; email: string } }>(first).admin
      assert.strictEqual(admin.email, "admin@demo.timebank.test")
      assert.deepStrictEqual(jsonOf<{ admin: unknown }>(second).admin, admin)
    }), TIMEOUT)

  it.effect(
    "user create makes an active, approved user (a generated password when none is given); refusals are typed",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const email = `op-${randomBytes(4).toString("hex")}@example.org`
        const created = yield* cli(
          db,
          ...["user", "create", "--tenant", "platform", "--email", email, "--first-name", "Olga"],
          ...["--last-name", "Operator", "--role", "coordinator", "--json"]
        )
        assert.strictEqual(created.code, 0, created.stderr)
        const user = jsonOf<Record<string, unknown> & { password: string }>(created)
        assert.include(user, {
          email,
          first_name: "Olga",
          last_name: "Operator",
          role: "coordinator",
          status: "active",
          is_approved: true
        })
        assert.isString(user.password)
        const stored = yield* Effect.promise(async () => {
          const client = new pg.Client({ connectionString: db })
          await client.connect()
          try {
            return (await client.query("SELECT password_hash FROM users WHERE id = $1", [user["id"]])).rows[0] as {
              password_hash: string
            }
          } finally {
            await client.end()
          }
        })
        assert.isTrue(yield* verifyPassword(user.password, stored.password_hash))

        const names = ["--first-name", "A", "--last-name", "B", "--json"]
        const [duplicate, unknownTenant] = yield* Effect.all([
          cli(db, "user", "create", "--tenant", "platform", "--email", email.toUpperCase(), ...names),
          cli(db, "user", "create", "--tenant", "999999", "--email", "x@example.org", ...names)
        ], { concurrency: "unbounded" })
        assert.strictEqual(duplicate.code, 1)
        assert.deepInclude(jsonOf<Errors>(duplicate).errors[0], { code: "ALREADY_EXISTS", field: "email" })
        assert.strictEqual(unknownTenant.code, 1)
        assert.strictEqual(jsonOf<Errors>(unknownTenant).errors[0]?.code, "NOT_FOUND")
      }),
    TIMEOUT
  )

  it.effect(
    "ledger verify: a consistent ledger exits 0; a cached balance that disagrees with its entries exits 1",
    () =>
      Effect.gen(function*() {
        const db = yield* CliDatabase
        const sql = (text: string, values: Array<unknown> = []) =>
          Effect.promise(async () => {
            const client = new pg.Client({ connectionString: db })
            await client.connect()
            try {
              return (await client.query(text, values)).rows as Array<Record<string, unknown>>
            } finally {
              await client.end()
            }
          })
        const created = jsonOf<TenantJson>(
          yield* cli(db, "tenant", "create", "--slug", uniqueSlug(), "--name", "Ledger Check", "--json")
        )
        // One balanced grant, written the way the ledger writes it.
        yield* sql(
          `WITH acc AS (INSERT INTO ledger_accounts (tenant_id, kind, owner_id, balance) VALUES ($1, 'treasury', NULL, -2),
                                                                             ($1, 'organisation', 1, 2) RETURNING id, kind),
                tx AS (INSERT INTO ledger_transactions (tenant_id, type, amount, idempotency_key, request_hash)
                       VALUES ($1, 'grant', 2, 'cli-test', 'h') RETURNING id)
           INSERT INTO ledger_entries (tenant_id, transaction_id, account_id, amount)
           SELECT $1, tx.id, acc.id, CASE WHEN acc.kind = 'treasury' THEN -2 ELSE 2 END FROM tx, acc`,
          [created.id]
        )
        const clean = yield* cli(db, "ledger", "verify", "--tenant", String(created.id), "--json")
        assert.strictEqual(clean.code, 0, clean.stderr)
        assert.deepInclude(jsonOf<Record<string, unknown>>(clean), { ok: true, transactions: 1, accounts: 2 })

        yield* sql(
          "UPDATE ledger_accounts SET balance = 5 WHERE tenant_id = $1 AND kind = 'organisation'",
          [created.id]
        )
        const broken = yield* cli(db, "ledger", "verify", "--tenant", String(created.id))
        assert.strictEqual(broken.code, 1)
        assert.match(broken.stdout, /PROBLEMS FOUND/)
        assert.match(broken.stdout, /balance 5\.00, entries 2\.00/)
      }),
    TIMEOUT
  )
})

describe("cli", () => {
  it.scopedLive("migrate runs the migrations of a fresh database and says which", () =>
    Effect.gen(function*() {
      const db = yield* freshDatabase
      const run = yield* cli(db.url, "migrate", "--json")
      assert.strictEqual(run.code, 0, run.stderr)
      const names = jsonOf<{ migrated: Array<{ id: number; name: string }> }>(run).migrated.map((m) => m.name)
      assert.includeMembers(names, ["tenants", "outbox"])
    }), TIMEOUT)

  it.live(
    "an unknown command or flag is a usage error (exit 2); --help prints the usage",
    () =>
      Effect.gen(function*() {
        const unused = "postgres://127.0.0.1:1/none"
        const [unknown, badFlag, help] = yield* Effect.all([
          cli(unused, "frobnicate"),
          cli(unused, "tenant", "list", "--bogus", "--json"),
          cli(unused, "--help")
        ], { concurrency: "unbounded" })
        assert.strictEqual(unknown.code, 2)
        assert.match(unknown.stderr, /unknown command: frobnicate/)
        assert.match(unknown.stderr, /Usage:/)
        assert.strictEqual(badFlag.code, 2)
        assert.strictEqual(jsonOf<Errors>(badFlag).errors[0]?.code, "USAGE_ERROR")
        assert.strictEqual(help.code, 0)
        assert.match(help.stdout, /tenant create --slug S --name N/)
      }),
    TIMEOUT
  )
})
