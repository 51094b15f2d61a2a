import { assert, layer } from "@effect/vitest"
import { verifyPassword } from "@timebank/server"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ExitCode } from "../../apps/cli/src/ExitCode.js"
import { SEED_SIZES } from "../../apps/cli/src/seed/SeedPlan.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"
import { type Errors, jsonOf, query, runInProcess } from "./inProcess.js"

class CliDatabase extends Context.Tag("CliDatabase")<CliDatabase, string>() {
  static readonly Live = Layer.scoped(CliDatabase, Effect.map(freshDatabase, (db) => db.url))
}

const cli = (...argv: Array<string>) => Effect.flatMap(CliDatabase, (db) => runInProcess(db, ...argv))
const sql = <A = Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  Effect.flatMap(CliDatabase, (db) => query<A>(db, text, values))

interface Seeded {
  readonly tenant: { readonly id: number; readonly slug: string }
  readonly tag: string
  readonly counts: Record<string, number>
  readonly emails: string
  readonly password?: string
}

const newTenant = Effect.gen(function*() {
  const slug = `seed-${randomBytes(4).toString("hex")}`
  const run = yield* cli("tenant", "create", "--slug", slug, "--name", "Seeded", "--json")
  assert.strictEqual(run.code, 0, run.stderr)
  return jsonOf<{ id: number; slug: string }>(run)
})

const countIn = (table: string, tenantId: number, where = "true") =>
  Effect.map(
    sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE tenant_id = $1 AND ${where}`, [tenantId]),
    (rows) => rows[0]!.n
  )

layer(CliDatabase.Live, { excludeTestServices: true, timeout: "180 seconds" })("cli data commands", (it) => {
  it.effect("migrate status lists pending migrations (exit 4) until migrate ran them (exit 0)", () =>
    Effect.gen(function*() {
      const before = yield* cli("migrate", "status", "--json")
      assert.strictEqual(before.code, ExitCode.checkFailed, before.stderr)
      const pending = jsonOf<
        { up_to_date: boolean; applied: Array<unknown>; pending: Array<{ id: number; name: string }> }
      >(before)
      assert.include(pending, { up_to_date: false })
      assert.deepStrictEqual(pending.applied, [])
      assert.deepInclude(pending.pending, { id: 1, name: "tenants" })

      const ran = yield* cli("migrate", "--json")
      assert.strictEqual(ran.code, 0, ran.stderr)
      const names = jsonOf<{ migrated: Array<{ name: string }> }>(ran).migrated.map((m) => m.name)
      assert.deepStrictEqual(names, pending.pending.map((m) => m.name))
      const again = yield* cli("migrate", "up")
      assert.strictEqual(again.stdout, "nothing to migrate\n")

      const after = yield* cli("migrate", "status")
      assert.strictEqual(after.code, 0, after.stderr)
      assert.match(after.stdout, /^MIGRATION +APPLIED\n0001_tenants +\d{4}-\d\d-\d\dT/)
      assert.match(after.stdout, /\nup to date\n$/)
    }))

  it.effect("seed data --size small writes the size's rows, consistent: members sign in, the ledger verifies", () =>
    Effect.gen(function*() {
      const tenant = yield* newTenant
      const run = yield* cli("seed", "data", "--tenant", tenant.slug, "--size", "small", "--json")
      assert.strictEqual(run.code, 0, run.stderr)
      const seeded = jsonOf<Seeded>(run)
      assert.deepStrictEqual(seeded.counts, SEED_SIZES.small)
      assert.strictEqual(seeded.emails, `seed-${seeded.tag}-{N}@example.org`)
      // Counted independently of the command's own count.
      assert.strictEqual(yield* countIn("users", tenant.id), SEED_SIZES.small.members)
      assert.strictEqual(yield* countIn("vol_organisations", tenant.id), SEED_SIZES.small.organisations)
      assert.strictEqual(yield* countIn("vol_organisation_members", tenant.id, "role = 'owner'"), 10)
      assert.strictEqual(yield* countIn("vol_hours", tenant.id, "status = 'approved'"), 10 * 2 * 2)
      assert.strictEqual(yield* countIn("listings", tenant.id), SEED_SIZES.small.listings)
      assert.strictEqual(yield* countIn("events", tenant.id), SEED_SIZES.small.events)
      assert.strictEqual(yield* countIn("event_rsvps", tenant.id), SEED_SIZES.small.events * 5)
      assert.strictEqual(yield* countIn("ledger_transactions", tenant.id, "type = 'transfer'"), 500)
      assert.strictEqual(yield* countIn("ledger_transactions", tenant.id, "type = 'grant'"), 100)
      const [member] = yield* sql<{ password_hash: string }>("SELECT password_hash FROM users WHERE email = $1", [
        seeded.emails.replace("{N}", "1")
      ])
      assert.isTrue(yield* verifyPassword(seeded.password!, member!.password_hash))

      const verified = yield* cli("ledger", "verify", "--tenant", tenant.slug, "--json")
      assert.strictEqual(verified.code, 0, verified.stdout)
      assert.deepInclude(jsonOf<Record<string, unknown>>(verified), { ok: true, transactions: 600, accounts: 101 })

      // A second run into the same tenant adds to it, with explicit counts and a given password.
      const more = yield* cli(
        ...["seed", "data", "--tenant", String(tenant.id), "--members", "3", "--organisations", "1"],
        ...["--listings", "0", "--events", "0", "--transactions", "4", "--password", "seed-pass-1", "--json"]
      )
      assert.strictEqual(more.code, 0, more.stderr)
      const second = jsonOf<Seeded>(more)
      assert.deepStrictEqual(second.counts, { members: 3, organisations: 1, listings: 0, events: 0, transactions: 4 })
      assert.isUndefined(second.password, "a given password is not printed back")
      assert.strictEqual(yield* countIn("users", tenant.id), 103)

      const [refused, unknown] = yield* Effect.all([
        cli("seed", "data", "--tenant", tenant.slug, "--members", "1", "--transactions", "5", "--json"),
        cli("seed", "data", "--tenant", "no-such-tenant", "--json")
      ])
      assert.strictEqual(refused.code, ExitCode.usage)
      assert.deepInclude(jsonOf<Errors>(refused).errors[0], { code: "VALIDATION_ERROR", field: "members" })
      assert.strictEqual(unknown.code, ExitCode.notFound)
    }))

  it.effect("ledger verify exits 4 with the problem when a balance disagrees with its entries; others stay ok", () =>
    Effect.gen(function*() {
      const healthy = yield* newTenant
      const broken = yield* newTenant
      for (const tenant of [healthy, broken]) {
        const seeded = yield* cli(
          ...["seed", "data", "--tenant", tenant.slug, "--members", "2", "--organisations", "0"],
          ...["--listings", "0", "--events", "0", "--transactions", "2"]
        )
        assert.strictEqual(seeded.code, 0, seeded.stderr)
      }
      const [account] = yield* sql<{ id: number; balance: string }>(
        `UPDATE ledger_accounts SET balance = balance + 1
         WHERE id = (SELECT min(id) FROM ledger_accounts WHERE tenant_id = $1 AND kind = 'member')
         RETURNING id::int, balance::text`,
        [broken.id]
      )
      const [brokenRun, brokenJson, healthyRun, all] = yield* Effect.all([
        cli("ledger", "verify", "--tenant", broken.slug),
        cli("ledger", "verify", "--tenant", String(broken.id), "--json"),
        cli("ledger", "verify", "--tenant", healthy.slug),
        cli("ledger", "verify")
      ])
      assert.strictEqual(brokenRun.code, ExitCode.checkFailed)
      assert.match(brokenRun.stdout, /^PROBLEMS FOUND \(1\): 4 transactions, 3 accounts in tenant/)
      assert.include(brokenRun.stdout, `  account ${account!.id}: balance ${account!.balance}, entries `)
      assert.strictEqual(brokenJson.code, ExitCode.checkFailed)
      const report = jsonOf<{ ok: boolean; balanceMismatches: Array<{ accountId: number }> }>(brokenJson)
      assert.isFalse(report.ok)
      assert.deepStrictEqual(report.balanceMismatches.map((m) => m.accountId), [account!.id])
      assert.strictEqual(healthyRun.code, 0, healthyRun.stdout)
      assert.match(healthyRun.stdout, /^ok: 4 transactions, 3 accounts in tenant \d+ "seed-/)
      assert.strictEqual(all.code, ExitCode.checkFailed, "the whole ledger has the broken tenant in it")
    }))

  it.effect("report export streams the CSV of the admin API; --out writes a file; report show prints the report", () =>
    Effect.gen(function*() {
      const tenant = yield* newTenant
      const seed = yield* cli("seed", "data", "--tenant", tenant.slug, "--members", "20", "--organisations", "3")
      assert.strictEqual(seed.code, 0, seed.stderr)

      const hours = yield* cli("report", "export", "hours", "--tenant", tenant.slug)
      assert.strictEqual(hours.code, 0, hours.stderr)
      const lines = hours.stdout.split("\r\n")
      assert.strictEqual(lines[0], "organisation_id,organisation,month,hours")
      assert.strictEqual(lines.at(-1), "", "every record ends with CRLF")
      const [exchanges] = yield* sql<{ month: string; hours: string }>(
        `SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM') AS month, sum(amount)::text AS hours
         FROM ledger_transactions WHERE tenant_id = $1 AND type = 'transfer'
           AND created_at >= date_trunc('month', now(), 'UTC')`,
        [tenant.id]
      )
      assert.include(lines, `,Member exchanges,${exchanges!.month},${Number(exchanges!.hours)}`)
      const organisationRows = lines.filter((l) => /^\d+,Organisation /.test(l))
      const [volunteered] = yield* sql<{ hours: string }>(
        "SELECT sum(hours)::text AS hours FROM vol_hours WHERE tenant_id = $1 AND status = 'approved'",
        [tenant.id]
      )
      const csvHours = organisationRows.reduce((sum, l) => sum + Number(l.split(",")[3]) * 100, 0) / 100
      assert.strictEqual(csvHours, Number(volunteered!.hours))

      const file = join(tmpdir(), `members-${randomBytes(4).toString("hex")}.csv`)
      const written = yield* cli("report", "export", "members", "--tenant", tenant.slug, "--out", file, "--json")
      assert.strictEqual(written.code, 0, written.stderr)
      const summary = jsonOf<{ type: string; file: string; bytes: number; from: string; to: string }>(written)
      const csv = yield* Effect.promise(() => readFile(file, "utf8"))
      yield* Effect.promise(() => rm(file))
      assert.include(summary, { type: "members", file, bytes: Buffer.byteLength(csv) })
      const records = csv.trimEnd().split("\r\n")
      assert.strictEqual(records[0], "id,first_name,last_name,email,role,status,balance,joined_at")
      assert.strictEqual(records.length, 1 + 20)
      const [first] = yield* sql<{ id: number; email: string; balance: string }>(
        `SELECT u.id::int, u.email, a.balance::text FROM users u
         JOIN ledger_accounts a ON a.owner_id = u.id AND a.kind = 'member' WHERE u.tenant_id = $1 ORDER BY u.id LIMIT 1`,
        [tenant.id]
      )
      const row = records.find((r) => r.startsWith(`${first!.id},`))!.split(",")
      assert.deepStrictEqual([row[3], row[6]], [first!.email, String(Number(first!.balance))])

      const [shown, social, unknownType, badRange] = yield* Effect.all([
        cli("report", "show", "hours", "--tenant", tenant.slug, "--json"),
        cli("report", "show", "social-value", "--tenant", tenant.slug),
        cli("report", "export", "payroll", "--tenant", tenant.slug),
        cli("report", "show", "members", "--tenant", tenant.slug, "--from", "2026-13-01", "--json")
      ])
      assert.strictEqual(shown.code, 0, shown.stderr)
      const report = jsonOf<{ total: number; by_month: Array<{ month: string; hours: number }> }>(shown)
      assert.lengthOf(report.by_month, 12)
      assert.include(report.by_month.at(-1), { month: exchanges!.month })
      assert.match(social.stdout, /^hours: +[\d.]+\nhourly value: +[\d.]+ [A-Z]{3}\nsocial value: +[\d.]+ [A-Z]{3}$/m)
      assert.strictEqual(unknownType.code, ExitCode.notFound)
      assert.strictEqual(unknownType.stderr, "error: NOT_FOUND: Report export not found\n")
      assert.strictEqual(unknownType.stdout, "")
      assert.strictEqual(badRange.code, ExitCode.usage)
      assert.deepInclude(jsonOf<Errors>(badRange).errors[0], { code: "VALIDATION_ERROR", field: "from" })
    }))
})
