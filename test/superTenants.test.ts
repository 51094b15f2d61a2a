import { assert, layer } from "@effect/vitest"
import { CurrentTenant, TenantId, UserId } from "@timebank/domain"
import { bootstrapSuperAdmin, UserRepo, verifyPassword } from "@timebank/server"
import { ConfigProvider, Effect, Exit, Option } from "effect"
import { randomBytes } from "node:crypto"
import { errorsOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus, failureOf } from "./fixtures/client.js"
import { actor, makeActor, visitor } from "./fixtures/community.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { login, makeAdmin, makeSuperAdmin, platformTenant } from "./fixtures/users.js"

interface TenantBody {
  id: number
  slug: string
  name: string
  domain: string | null
  status: string
  timezone: string
  features: Record<string, boolean>
  settings: Record<string, unknown>
  admin?: { id: number; email: string }
}
const dataOf = (body: unknown) => (body as { data: TenantBody }).data

const PATH = "/api/v2/admin/super/tenants"
const uniqueSlug = () => `st-${randomBytes(4).toString("hex")}`
const newAdmin = () => ({
  email: `first-admin-${randomBytes(4).toString("hex")}@example.org`,
  password: "first admin password",
  first_name: "Ada",
  last_name: "First"
})
const json = (body: unknown) => JSON.stringify(body)

/** A signed-in platform super-admin: headers and typed client. */
const superAdmin = Effect.flatMap(makeSuperAdmin(), (user) => actor(user))

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("super-admin tenants API", (it) => {
  it.effect("POST creates the tenant and its first admin, who can log in there; GET reads and lists it", () =>
    Effect.gen(function*() {
      const { client, headers } = yield* superAdmin
      const slug = uniqueSlug()
      const admin = newAdmin()
      // An untrimmed name, which the typed client refuses to send: raw.
      const created = yield* rawRequest("POST", PATH, {
        headers,
        body: json({
          slug,
          name: "  Harbour Time Bank ",
          timezone: "Europe/Lisbon",
          features: { blog: false, federation: true },
          settings: { starting_balance: 2.5, listing_moderation: true },
          admin
        })
      })
      assert.strictEqual(created.status, 201, created.text)
      const tenant = dataOf(created.body)
      assert.deepStrictEqual((created.body as { meta: unknown }).meta, {})
      assert.include(tenant, { slug, name: "Harbour Time Bank", status: "active", timezone: "Europe/Lisbon" })
      assert.include(tenant.features, { blog: false, federation: true, events: true, listings: true })
      assert.include(tenant.settings, {
        starting_balance: 2.5,
        listing_moderation: true,
        registration_requires_approval: true,
        default_language: "en"
      })
      assert.strictEqual(tenant.admin?.email, admin.email)
      assert.isAbove(tenant.admin!.id, 0)

      // The community answers at once, and its first admin signs in there as an active, approved admin.
      const bySlug = yield* apiClient({ "x-tenant-slug": slug })
      const publicView = yield* bySlug.tenancy.current({ withResponse: true }).pipe(expectStatus(200))
      assert.strictEqual(publicView.data.features["blog"], false)
      const signIn = yield* bySlug.auth.login({
        payload: { email: admin.email, password: admin.password },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.include(signIn.user, {
        id: UserId.make(tenant.admin!.id),
        tenant_id: TenantId.make(tenant.id),
        role: "admin",
        status: "active",
        is_approved: true,
        is_admin: true,
        is_super_admin: false
      })

      const read = yield* client.superTenants.get({ path: { id: TenantId.make(tenant.id) } })
      assert.strictEqual(read.data.slug, slug)
      assert.strictEqual(read.data.settings.starting_balance, 2.5)

      const page = yield* client.superTenants.list({ urlParams: { per_page: 100 } })
      assert.include(page.data.map((t) => t.slug), slug)
      assert.include(page.data.map((t) => t.slug), "platform")
      assert.strictEqual(page.meta.current_page, 1)
      assert.strictEqual(page.meta.per_page, 100)
      assert.isAtLeast(page.meta.total, 2)
      const secondPage = yield* client.superTenants.list({ urlParams: { page: 2, per_page: 1 }, withResponse: true })
        .pipe(expectStatus(200))
      assert.strictEqual(secondPage.data.length, 1)
      assert.include(secondPage.meta, { current_page: 2, per_page: 1, total: page.meta.total })
    }))

  it.effect("PUT changes name, domain and status and merges features and settings; suspension locks it", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant({ features: { polls: false }, settings: { starting_balance: 3 } })
      const member = yield* makeActor(tenant)
      const { client } = yield* superAdmin
      const path = { id: TenantId.make(tenant.id) }
      const domain = `${tenant.slug}.example.org`
      const updated = yield* client.superTenants.update({
        path,
        payload: { name: "Renamed", domain, features: { blog: false }, settings: { allow_negative_balance: true } },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.include(updated.data, { id: tenant.id, name: "Renamed", domain, status: "active" })
      assert.include(updated.data.features, { polls: false, blog: false, events: true })
      assert.include(updated.data.settings, { starting_balance: 3, allow_negative_balance: true })

      const suspended = yield* client.superTenants.update({
        path,
        payload: { status: "suspended" },
        withResponse: true
      })
        .pipe(expectStatus(200))
      assert.strictEqual(suspended.data.status, "suspended")
      const anonymous = yield* visitor(tenant)
      for (const reader of [anonymous.client, member.client]) {
        yield* reader.users.me().pipe(expectError(400, "tenant_resolution_failed"))
      }
      // Still visible to the super-admin, and reactivated it answers again.
      const listed = yield* client.superTenants.get({ path })
      assert.strictEqual(listed.data.status, "suspended")
      yield* client.superTenants.update({ path, payload: { status: "active" }, withResponse: true }).pipe(
        expectStatus(200)
      )
      yield* member.client.users.me({ withResponse: true }).pipe(expectStatus(200))
    }))

  it.effect("a duplicate slug is 409 ALREADY_EXISTS on slug and creates nothing; a taken domain is 409 on domain", () =>
    Effect.gen(function*() {
      const existing = yield* makeTenant({ domain: `taken-${randomBytes(3).toString("hex")}.example.org` })
      const { client } = yield* superAdmin
      const before = (yield* client.superTenants.list({ urlParams: { per_page: 100 } })).meta.total
      const admin = newAdmin()
      const duplicate = yield* client.superTenants.create({ payload: { slug: existing.slug, name: "Copy", admin } })
        .pipe(expectError(409, "ALREADY_EXISTS"))
      assert.deepInclude(duplicate.errors[0], { code: "ALREADY_EXISTS", field: "slug" })
      const takenDomain = yield* client.superTenants.create({
        payload: { slug: uniqueSlug(), name: "Copy", domain: existing.domain, admin }
      }).pipe(expectError(409, "ALREADY_EXISTS"))
      assert.deepInclude(takenDomain.errors[0], { code: "ALREADY_EXISTS", field: "domain" })
      const after = (yield* client.superTenants.list({ urlParams: { per_page: 100 } })).meta.total
      assert.strictEqual(after, before)
      // The admin of the refused tenant was not created anywhere: the slug's tenant has no such user.
      const signIn = yield* Effect.flatMap(
        visitor(existing),
        (v) => failureOf(v.client.auth.login({ payload: { email: admin.email, password: admin.password } }))
      )
      assert.strictEqual(signIn.status, 401)
    }))

  it.effect("bad fields are 422 VALIDATION_ERROR, one entry per field, nested admin fields included", () =>
    Effect.gen(function*() {
      const { client, headers } = yield* superAdmin
      // Bodies the contract refuses to send: raw.
      const bad = yield* rawRequest("POST", PATH, {
        headers,
        body: json({
          slug: "Not A Slug",
          name: "",
          timezone: "Mars/Olympus",
          features: { teleport: true },
          settings: { starting_balance: "lots" },
          admin: { email: "nobody", password: "short", first_name: "A" }
        })
      })
      assert.strictEqual(bad.status, 422, bad.text)
      const fields = errorsOf(bad.body).map((e) => e.field).sort()
      assert.includeMembers(fields, [
        "admin.email",
        "admin.last_name",
        "admin.password",
        "features.teleport",
        "name",
        "settings.starting_balance",
        "slug",
        "timezone"
      ])
      for (const e of errorsOf(bad.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")

      const noAdmin = yield* rawRequest("POST", PATH, { headers, body: json({ slug: uniqueSlug(), name: "X" }) })
      assert.strictEqual(noAdmin.status, 422)
      assert.strictEqual(errorsOf(noAdmin.body)[0]!.field, "admin")

      const tenant = yield* makeTenant()
      const badUpdate = yield* rawRequest("PUT", `${PATH}/${tenant.id}`, {
        headers,
        body: json({ status: "closed", features: { blog: "no" } })
      })
      assert.strictEqual(badUpdate.status, 422)
      assert.sameMembers(errorsOf(badUpdate.body).map((e) => e.field), ["status", "features.blog"])
      const empty = yield* failureOf(
        client.superTenants.update({ path: { id: TenantId.make(tenant.id) }, payload: {} })
      )
      assert.strictEqual(empty.status, 422)

      // Suspending the platform itself would lock every super-admin out.
      const platform = yield* platformTenant
      const lockout = yield* failureOf(
        client.superTenants.update({ path: { id: TenantId.make(platform.id) }, payload: { status: "suspended" } })
      )
      assert.strictEqual(lockout.status, 422)
      assert.strictEqual(lockout.fields[0], "status")
    }))

  it.effect("unknown or malformed ids are 404 NOT_FOUND on GET and PUT", () =>
    Effect.gen(function*() {
      const { client, headers } = yield* superAdmin
      const unknown = { id: TenantId.make(987654321) }
      yield* client.superTenants.get({ path: unknown }).pipe(expectError(404, "NOT_FOUND"))
      yield* client.superTenants.update({ path: unknown, payload: { name: "Ghost" } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      // Ids the contract cannot express: raw.
      for (const id of ["abc", "0", "-4", "1.5"]) {
        const get = yield* rawRequest("GET", `${PATH}/${id}`, { headers })
        assert.strictEqual(get.status, 404, id)
        assert.strictEqual(errorsOf(get.body)[0]!.code, "NOT_FOUND")
        const put = yield* rawRequest("PUT", `${PATH}/${id}`, { headers, body: json({ name: "Ghost" }) })
        assert.strictEqual(put.status, 404, id)
      }
    }))

  it.effect("no token is 401; members, tenant admins and non-super platform users are 403; foreign tokens 401", () =>
    Effect.gen(function*() {
      const platform = yield* platformTenant
      const tenant = yield* makeTenant()
      const other = yield* makeTenant()
      const tenantAdmin = yield* actor(yield* makeAdmin(tenant))
      const member = yield* makeActor(tenant)
      const platformStaff = yield* actor(yield* makeAdmin(platform))
      const payload = { slug: uniqueSlug(), name: "Sneaky", admin: newAdmin() }
      const path = { id: TenantId.make(other.id) }

      const anonymous = yield* visitor(platform)
      yield* anonymous.client.superTenants.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      const anonymousCreate = yield* failureOf(anonymous.client.superTenants.create({ payload }))
      assert.strictEqual(anonymousCreate.status, 401)

      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.superTenants.list({ urlParams: {} }),
        (client) => client.superTenants.create({ payload }),
        (client) => client.superTenants.get({ path }),
        (client) => client.superTenants.update({ path, payload: { status: "suspended" } })
      ]
      for (const { client } of [tenantAdmin, member, platformStaff]) {
        for (const request of requests) yield* request(client).pipe(expectError(403, "FORBIDDEN"))
      }
      // A tenant admin's token addressed to the platform (or to another tenant) is no credential there (D4).
      for (const target of [platform, other]) {
        const foreign = yield* apiClient({ ...tenantAdmin.headers, ...tenantHeaders(target) })
        const res = yield* failureOf(foreign.superTenants.list({ urlParams: {} }))
        assert.strictEqual(res.status, 401)
      }
      yield* Effect.flatMap(visitor(other), (v) => v.client.tenancy.current({ withResponse: true })).pipe(
        expectStatus(200)
      )
    }))

  it.effect("bootstrap: the configured super-admin is created once; a later start changes nothing", () =>
    Effect.gen(function*() {
      const email = `root-${randomBytes(4).toString("hex")}@example.org`
      const start = (password: string) =>
        bootstrapSuperAdmin.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(
          new Map([["BOOTSTRAP_SUPER_ADMIN_EMAIL", email], ["BOOTSTRAP_SUPER_ADMIN_PASSWORD", password]])
        )))
      const first = yield* start("first password")
      assert.deepStrictEqual(first, Option.some({ email, created: true }))
      const again = yield* start("second password")
      assert.deepStrictEqual(again, Option.some({ email, created: false }))

      const platform = yield* platformTenant
      const row = yield* Effect.flatMap(UserRepo, (users) => users.findByEmail(email)).pipe(
        Effect.provideService(CurrentTenant, platform),
        Effect.flatMap(Effect.orDie)
      )
      assert.include(row, { role: "admin", is_super_admin: true, status: "active", is_approved: true })
      assert.isTrue(yield* verifyPassword("first password", row.password_hash!))
      assert.isFalse(yield* verifyPassword("second password", row.password_hash!))

      // The bootstrapped account is a working platform super-admin.
      const tokens = yield* login({ id: Number(row.id), email, password: "first password", tenant: platform })
      const client = yield* apiClient({ ...tenantHeaders(platform), authorization: `Bearer ${tokens.access_token}` })
      yield* client.superTenants.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))

      const unset = yield* bootstrapSuperAdmin.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map())))
      assert.isTrue(Option.isNone(unset))
      for (
        const env of [
          [["BOOTSTRAP_SUPER_ADMIN_EMAIL", email]],
          [["BOOTSTRAP_SUPER_ADMIN_PASSWORD", "long enough"]],
          [["BOOTSTRAP_SUPER_ADMIN_EMAIL", "not-an-email"], ["BOOTSTRAP_SUPER_ADMIN_PASSWORD", "long enough"]],
          [["BOOTSTRAP_SUPER_ADMIN_EMAIL", email], ["BOOTSTRAP_SUPER_ADMIN_PASSWORD", "short"]]
        ] as const
      ) {
        const exit = yield* Effect.exit(
          bootstrapSuperAdmin.pipe(Effect.withConfigProvider(ConfigProvider.fromMap(new Map(env))))
        )
        assert.isTrue(Exit.isFailure(exit), JSON.stringify(env))
      }
    }))
})
