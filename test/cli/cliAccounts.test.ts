import { assert, layer } from "@effect/vitest"
import { verifyPassword } from "@timebank/server"
import { Context, Effect, Layer } from "effect"
import { randomBytes } from "node:crypto"
import { ExitCode } from "../../apps/cli/src/ExitCode.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"
import { type CliRun, type Errors, jsonOf, query, runInProcess } from "./inProcess.js"

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

interface UserJson {
  readonly id: number
  readonly email: string
  readonly role: string
  readonly status: string
  readonly is_approved: boolean
  readonly password?: string
}

class CliDatabase extends Context.Tag("CliDatabase")<CliDatabase, string>() {
  static readonly Live = Layer.scoped(CliDatabase, Effect.map(freshDatabase, (db) => db.url))
}

const cli = (...argv: Array<string>) => Effect.flatMap(CliDatabase, (db) => runInProcess(db, ...argv))
const sql = <A = Record<string, unknown>>(text: string, values: Array<unknown> = []) =>
  Effect.flatMap(CliDatabase, (db) => query<A>(db, text, values))

const uniqueSlug = () => `cli-${randomBytes(4).toString("hex")}`

const newTenant = (name: string) =>
  Effect.map(cli("tenant", "create", "--slug", uniqueSlug(), "--name", name, "--json"), (run) => {
    assert.strictEqual(run.code, 0, run.stderr)
    return jsonOf<TenantJson>(run)
  })

const errorOf = (run: CliRun) => jsonOf<Errors>(run).errors[0]

layer(CliDatabase.Live, { excludeTestServices: true, timeout: "120 seconds" })("cli tenants and users", (it) => {
  it.effect("tenant create, list and show; the same slug again is refused (5), an unknown tenant not found (3)", () =>
    Effect.gen(function*() {
      const slug = uniqueSlug()
      const created = yield* cli(
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
      const [row] = yield* sql("SELECT name, timezone FROM tenants WHERE slug = $1", [slug])
      assert.deepStrictEqual(row, { name: "Riverside", timezone: "Europe/Berlin" })

      const again = yield* cli("tenant", "create", "--slug", slug, "--name", "Other", "--json")
      assert.strictEqual(again.code, ExitCode.refused)
      assert.deepInclude(errorOf(again), { code: "ALREADY_EXISTS", field: "slug" })

      const listed = yield* cli("tenant", "list", "--json")
      assert.strictEqual(listed.code, 0, listed.stderr)
      const slugs = jsonOf<Array<TenantJson>>(listed).map((t) => t.slug)
      assert.strictEqual(slugs[0], "platform")
      assert.include(slugs, slug)
      const table = yield* cli("tenant", "list")
      assert.match(table.stdout, /^ID +SLUG +NAME +STATUS +DOMAIN +TIMEZONE\n/)
      assert.match(table.stdout, new RegExp(`^${tenant.id} +${slug} +Riverside +active +- +Europe/Berlin$`, "m"))

      const [bySlug, byId, text, missing, notAnId] = yield* Effect.all([
        cli("tenant", "show", slug, "--json"),
        cli("tenant", "show", String(tenant.id), "--json"),
        cli("tenant", "show", slug),
        cli("tenant", "show", "no-such-tenant", "--json"),
        cli("tenant", "show", "999999")
      ])
      assert.deepStrictEqual(jsonOf(bySlug), tenant)
      assert.deepStrictEqual(jsonOf(byId), tenant)
      assert.match(text.stdout, /^status: +active$/m)
      assert.match(text.stdout, /^features: .*federation=true/m)
      assert.strictEqual(missing.code, ExitCode.notFound)
      assert.deepStrictEqual(jsonOf<Errors>(missing).errors, [{ code: "NOT_FOUND", message: "Tenant not found" }])
      assert.strictEqual(notAnId.code, ExitCode.notFound)
      assert.strictEqual(notAnId.stderr, "error: NOT_FOUND: Tenant not found\n")
    }))

  it.effect("bad input is VALIDATION_ERROR with exit 2, in words on stderr or as JSON", () =>
    Effect.gen(function*() {
      const [badSlug, unknownFeature, brokenJson, nothing] = yield* Effect.all([
        cli("tenant", "create", "--slug", "Not Valid", "--name", "X"),
        cli("tenant", "create", "--slug", uniqueSlug(), "--name", "X", "--features", "{\"nope\":true}", "--json"),
        cli("tenant", "create", "--slug", uniqueSlug(), "--name", "X", "--settings", "{nope", "--json"),
        cli("tenant", "update", "platform", "--json")
      ])
      assert.strictEqual(badSlug.code, ExitCode.usage)
      assert.strictEqual(badSlug.stdout, "")
      assert.match(badSlug.stderr, /^error: VALIDATION_ERROR: .+ \(field slug\)$/m)
      assert.strictEqual(unknownFeature.code, ExitCode.usage)
      assert.deepInclude(errorOf(unknownFeature), { code: "VALIDATION_ERROR", field: "features.nope" })
      assert.deepStrictEqual(jsonOf<Errors>(brokenJson).errors, [
        { code: "VALIDATION_ERROR", message: "is not valid JSON", field: "settings" }
      ])
      assert.strictEqual(nothing.code, ExitCode.usage)
      assert.deepStrictEqual(jsonOf<Errors>(nothing).errors, [{
        code: "VALIDATION_ERROR",
        message: "nothing to change"
      }])
    }))

  it.effect("tenant suspend and activate change the status; the platform cannot be suspended; update renames", () =>
    Effect.gen(function*() {
      const tenant = yield* newTenant("To Suspend")
      const suspended = yield* cli("tenant", "suspend", tenant.slug, "--json")
      assert.strictEqual(suspended.code, 0, suspended.stderr)
      assert.include(jsonOf<TenantJson>(suspended), { id: tenant.id, status: "suspended" })
      assert.deepStrictEqual(yield* sql("SELECT status FROM tenants WHERE id = $1", [tenant.id]), [{
        status: "suspended"
      }])
      const activated = yield* cli("tenant", "activate", String(tenant.id))
      assert.strictEqual(activated.code, 0, activated.stderr)
      assert.strictEqual(activated.stdout, `activated tenant ${tenant.id} "${tenant.slug}" (To Suspend, active)\n`)
      const renamed = yield* cli("tenant", "update", tenant.slug, "--name", "Renamed", "--domain", "x.example.org")
      assert.strictEqual(renamed.code, 0, renamed.stderr)
      assert.deepStrictEqual(yield* sql("SELECT name, domain, status FROM tenants WHERE id = $1", [tenant.id]), [
        { name: "Renamed", domain: "x.example.org", status: "active" }
      ])

      const [platform, unknown] = yield* Effect.all([
        cli("tenant", "suspend", "platform", "--json"),
        cli("tenant", "suspend", "no-such-tenant", "--json")
      ])
      assert.strictEqual(platform.code, ExitCode.usage)
      assert.deepInclude(errorOf(platform), { code: "VALIDATION_ERROR", field: "status" })
      assert.deepStrictEqual(yield* sql("SELECT status FROM tenants WHERE slug = 'platform'"), [{ status: "active" }])
      assert.strictEqual(unknown.code, ExitCode.notFound)
    }))

  it.effect("user create makes an active, approved account with a generated password; refusals are typed", () =>
    Effect.gen(function*() {
      const tenant = yield* newTenant("Users Place")
      const email = `op-${randomBytes(4).toString("hex")}@example.org`
      const created = yield* cli(
        ...["user", "create", "--tenant", tenant.slug, "--email", email, "--first-name", "Olga"],
        ...["--last-name", "Operator", "--role", "coordinator", "--json"]
      )
      assert.strictEqual(created.code, 0, created.stderr)
      const user = jsonOf<UserJson & { tenant_id: number }>(created)
      assert.include(user, { email, role: "coordinator", status: "active", is_approved: true, tenant_id: tenant.id })
      const [stored] = yield* sql<{ password_hash: string }>("SELECT password_hash FROM users WHERE id = $1", [user.id])
      assert.isTrue(yield* verifyPassword(user.password!, stored!.password_hash))

      const names = ["--first-name", "A", "--last-name", "B", "--json"]
      const [duplicate, unknownTenant, badRole] = yield* Effect.all([
        cli("user", "create", "--tenant", tenant.slug, "--email", email.toUpperCase(), ...names),
        cli("user", "create", "--tenant", "999999", "--email", "x@example.org", ...names),
        cli("user", "create", "--tenant", tenant.slug, "--email", "y@example.org", "--role", "boss", ...names)
      ])
      assert.strictEqual(duplicate.code, ExitCode.refused)
      assert.deepInclude(errorOf(duplicate), { code: "ALREADY_EXISTS", field: "email" })
      assert.strictEqual(unknownTenant.code, ExitCode.notFound)
      assert.strictEqual(errorOf(unknownTenant)?.code, "NOT_FOUND")
      assert.strictEqual(badRole.code, ExitCode.usage)
      assert.deepInclude(errorOf(badRole), { code: "VALIDATION_ERROR", field: "role" })
    }))

  it.effect("user list, show, set-role, set-password, suspend and activate act as the admin API does", () =>
    Effect.gen(function*() {
      const tenant = yield* newTenant("Admin Place")
      const make = (email: string) =>
        Effect.map(
          cli(
            "user",
            "create",
            "--tenant",
            tenant.slug,
            "--email",
            email,
            "--first-name",
            "M",
            "--last-name",
            "L",
            "--json"
          ),
          (run) => jsonOf<UserJson>(run)
        )
      const ada = yield* make("ada@example.org")
      const bob = yield* make("bob@example.org")
      // A session of Ada's, which a new password and a suspension end.
      yield* sql(
        "INSERT INTO auth_sessions (tenant_id, user_id, expires_at) VALUES ($1, $2, now() + interval '1 day')",
        [tenant.id, ada.id]
      )

      const listed = yield* cli("user", "list", "--tenant", tenant.slug, "--json")
      assert.strictEqual(listed.code, 0, listed.stderr)
      assert.deepStrictEqual(jsonOf<Array<UserJson>>(listed).map((u) => u.email), [
        "bob@example.org",
        "ada@example.org"
      ])

      const role = yield* cli(
        "user",
        "set-role",
        "ada@example.org",
        "--tenant",
        tenant.slug,
        "--role",
        "broker",
        "--json"
      )
      assert.strictEqual(role.code, 0, role.stderr)
      assert.include(jsonOf<UserJson>(role), { id: ada.id, role: "broker" })
      const brokers = yield* cli("user", "list", "--tenant", String(tenant.id), "--role", "broker", "--json")
      assert.deepStrictEqual(jsonOf<Array<UserJson>>(brokers).map((u) => u.id), [ada.id])

      const password = yield* cli("user", "set-password", String(ada.id), "--tenant", tenant.slug, "--json")
      assert.strictEqual(password.code, 0, password.stderr)
      const generated = jsonOf<{ id: number; password_changed: boolean; password: string }>(password)
      assert.include(generated, { id: ada.id, password_changed: true })
      const [stored] = yield* sql<{ password_hash: string }>("SELECT password_hash FROM users WHERE id = $1", [ada.id])
      assert.isTrue(yield* verifyPassword(generated.password, stored!.password_hash))
      assert.deepStrictEqual(
        yield* sql("SELECT count(*)::int AS open FROM auth_sessions WHERE user_id = $1 AND revoked_at IS NULL", [
          ada.id
        ]),
        [{ open: 0 }]
      )

      const suspended = yield* cli("user", "suspend", "bob@example.org", "--tenant", tenant.slug, "--json")
      assert.strictEqual(suspended.code, 0, suspended.stderr)
      assert.deepStrictEqual(jsonOf(suspended), { id: bob.id, status: "suspended", is_approved: true })
      const shown = yield* cli("user", "show", "bob@example.org", "--tenant", tenant.slug)
      assert.match(shown.stdout, /^status: +suspended$/m)
      const activated = yield* cli("user", "activate", String(bob.id), "--tenant", tenant.slug)
      assert.strictEqual(activated.stdout, `user ${bob.id} in tenant ${tenant.id} "${tenant.slug}": active\n`)
      assert.deepStrictEqual(yield* sql("SELECT status FROM users WHERE id = $1", [bob.id]), [{ status: "active" }])
      const events = yield* sql<{ event_type: string }>(
        "SELECT event_type FROM outbox_events WHERE tenant_id = $1 AND event_type LIKE 'User%' ORDER BY id",
        [tenant.id]
      )
      assert.includeMembers(events.map((e) => e.event_type), [
        "UserRoleChanged",
        "UserPasswordSet",
        "UserSuspended",
        "UserReactivated"
      ])

      const other = yield* newTenant("Elsewhere")
      const [elsewhere, noSuchEmail, shortPassword] = yield* Effect.all([
        cli("user", "show", String(ada.id), "--tenant", other.slug, "--json"),
        cli("user", "suspend", "nobody@example.org", "--tenant", tenant.slug, "--json"),
        cli("user", "set-password", String(ada.id), "--tenant", tenant.slug, "--password", "short", "--json")
      ])
      assert.strictEqual(elsewhere.code, ExitCode.notFound, "another tenant's account is not found")
      assert.deepStrictEqual(jsonOf<Errors>(elsewhere).errors, [{ code: "NOT_FOUND", message: "User not found" }])
      assert.strictEqual(noSuchEmail.code, ExitCode.notFound)
      assert.strictEqual(shortPassword.code, ExitCode.usage)
      assert.deepInclude(errorOf(shortPassword), { code: "VALIDATION_ERROR", field: "password" })
    }))
})
