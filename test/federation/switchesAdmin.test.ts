import { assert, layer } from "@effect/vitest"
import { defaultCurrencyCode, NO_TOGGLES, TenantId } from "@timebank/domain"
import { FederationSwitches } from "@timebank/server"
import { Effect } from "effect"
import { errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor, visitor } from "../fixtures/community.js"
import { setPlatformFederation, setWhitelisted } from "../fixtures/federation.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeAdmin, makeSuperAdmin, platformTenant } from "../fixtures/users.js"

const SUPER = "/api/v2/admin/super/federation"
const SETTINGS = "/api/v2/admin/federation/settings"
const json = (body: unknown) => JSON.stringify(body)

/** What is stored, read past the runner's cache. */
const stored = Effect.provide(FederationSwitches, FederationSwitches.Default)
const storedTenant = (tenant: { readonly id: number }) => Effect.flatMap(stored, (s) => s.tenantNow(tenant.id))
const storedPlatform = Effect.flatMap(stored, (s) => s.platformEnabledNow)

const superAdmin = Effect.flatMap(makeSuperAdmin(), (user) => actor(user, "token"))

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation switches: admin routes", (it) => {
  it.effect("a super-admin reads and sets the platform switch; the change is stored at once", () =>
    Effect.gen(function*() {
      const { client } = yield* superAdmin
      yield* setPlatformFederation(false)
      const off = yield* client.superFederation.platform({ withResponse: true }).pipe(expectStatus(200))
      assert.deepStrictEqual(off, { data: { enabled: false }, meta: {} })

      const on = yield* client.superFederation.setPlatform({ payload: { enabled: true }, withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.deepStrictEqual(on.data, { enabled: true })
      assert.isTrue(yield* storedPlatform)
      assert.deepStrictEqual((yield* client.superFederation.platform()).data, { enabled: true })

      yield* client.superFederation.setPlatform({ payload: { enabled: false } })
      assert.isFalse(yield* storedPlatform)
      assert.deepStrictEqual((yield* client.superFederation.platform()).data, { enabled: false })
    }))

  it.effect("a super-admin whitelists a community and reads its switches; an unknown community is 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const { client, headers } = yield* superAdmin
      const path = { id: TenantId.make(c.tenant.id) }
      const before = yield* client.superFederation.tenant({ path, withResponse: true }).pipe(expectStatus(200))
      assert.deepStrictEqual(before.data, { tenant_id: c.tenant.id, whitelisted: false, toggles: NO_TOGGLES })

      const listed = yield* client.superFederation.setTenant({
        path,
        payload: { whitelisted: true },
        withResponse: true
      })
        .pipe(expectStatus(200))
      assert.deepStrictEqual(listed.data, { tenant_id: c.tenant.id, whitelisted: true, toggles: NO_TOGGLES })
      assert.isTrue((yield* storedTenant(c.tenant)).whitelisted)
      // The community's own toggles show through, read-only.
      yield* c.admin.client.adminFederationSettings.update({ payload: { events: true } })
      const read = yield* client.superFederation.tenant({ path })
      assert.deepStrictEqual(read.data.toggles, { ...NO_TOGGLES, events: true })

      yield* client.superFederation.setTenant({ path, payload: { whitelisted: false } })
      assert.isFalse((yield* storedTenant(c.tenant)).whitelisted)

      const missing = { id: TenantId.make(999_999_999) }
      yield* client.superFederation.setTenant({ path: missing, payload: { whitelisted: true } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* client.superFederation.tenant({ path: missing }).pipe(expectError(404, "NOT_FOUND"))
      // Ids that are not positive integers name nothing (D1); raw, since the typed client only sends numbers.
      for (const id of ["0", "-1", "abc", "1.5"]) {
        const res = yield* rawRequest("PUT", `${SUPER}/tenants/${id}`, { headers, body: json({ whitelisted: true }) })
        assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
      }
    }))

  it.effect("bodies that are not a boolean switch are 422 per field and change nothing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const { headers } = yield* superAdmin
      yield* setPlatformFederation(false)
      // Bodies the contract cannot express go raw.
      const cases: Array<[string, unknown, Array<string>]> = [
        [SUPER, { enabled: "yes" }, ["enabled"]],
        [SUPER, { enabled: 1 }, ["enabled"]],
        [SUPER, {}, ["enabled"]],
        [`${SUPER}/tenants/${c.tenant.id}`, { whitelisted: null }, ["whitelisted"]],
        [`${SUPER}/tenants/${c.tenant.id}`, { enabled: true }, ["whitelisted"]]
      ]
      for (const [path, body, fields] of cases) {
        const res = yield* rawRequest("PUT", path, { headers, body: json(body) })
        assert.strictEqual(res.status, 422, `${path} ${json(body)}: ${res.text}`)
        for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
        assert.includeMembers(errorsOf(res.body).map((e) => e.field), fields, json(body))
      }
      assert.isFalse(yield* storedPlatform)
      assert.isFalse((yield* storedTenant(c.tenant)).whitelisted)
    }))

  it.effect("the super routes refuse anonymous callers (401) and community admins and members (403)", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const platform = yield* platformTenant
      // A community's admin, even with the platform's tenant header, is not a platform super-admin.
      const platformMember = yield* makeActor(platform, {}, "token")
      const anonymous = yield* visitor(platform)
      const path = { id: TenantId.make(c.tenant.id) }
      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.superFederation.platform(),
        (client) => client.superFederation.setPlatform({ payload: { enabled: true } }),
        (client) => client.superFederation.tenant({ path }),
        (client) => client.superFederation.setTenant({ path, payload: { whitelisted: true } })
      ]
      for (const request of requests) {
        yield* request(anonymous.client).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const { client } of [c.admin, c.member, platformMember]) {
          yield* request(client).pipe(expectError(403, "FORBIDDEN"))
        }
      }
      assert.isFalse(yield* storedPlatform)
      assert.isFalse((yield* storedTenant(c.tenant)).whitelisted)
    }))

  it.effect("a tenant admin reads the eight toggles (all off) with the platform switch and whitelist in meta", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* setPlatformFederation(false)
      const res = yield* rawRequest("GET", SETTINGS, { headers: c.adminHeaders })
      // The exact wire envelope: data is D13's object and D16's currency code, nothing else.
      assert.strictEqual(res.status, 200, res.text)
      assert.deepStrictEqual(res.body, {
        data: {
          profiles: false,
          messaging: false,
          transactions: false,
          listings: false,
          events: false,
          groups: false,
          reviews: false,
          volunteering: false,
          currency_code: defaultCurrencyCode(c.tenant.id)
        },
        meta: { platform_enabled: false, whitelisted: false }
      })
      yield* setPlatformFederation(true)
      yield* setWhitelisted(c.tenant, true)
      const after = yield* c.admin.client.adminFederationSettings.get()
      assert.deepStrictEqual(after.meta, { platform_enabled: true, whitelisted: true })
      yield* setPlatformFederation(false)
    }))

  it.effect("PUT changes the toggles sent, keeps the others, answers the full object; another tenant is untouched", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const neighbour = yield* community({ signIn: "token" })
      const first = yield* c.admin.client.adminFederationSettings.update({
        payload: { listings: true, events: true },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.deepStrictEqual(first.data, {
        ...NO_TOGGLES,
        listings: true,
        events: true,
        currency_code: defaultCurrencyCode(c.tenant.id)
      })
      const second = yield* c.admin.client.adminFederationSettings.update({ payload: { events: false, reviews: true } })
      assert.deepStrictEqual(second.data, {
        ...NO_TOGGLES,
        listings: true,
        reviews: true,
        currency_code: defaultCurrencyCode(c.tenant.id)
      })
      // An empty change changes nothing.
      const empty = yield* c.admin.client.adminFederationSettings.update({ payload: {} })
      assert.deepStrictEqual(empty.data, second.data)
      assert.deepStrictEqual(
        { ...(yield* storedTenant(c.tenant)).toggles, currency_code: second.data.currency_code },
        second.data
      )
      assert.deepStrictEqual((yield* c.admin.client.adminFederationSettings.get()).data, second.data)
      // The neighbour's toggles are its own.
      assert.deepStrictEqual((yield* storedTenant(neighbour.tenant)).toggles, NO_TOGGLES)
      assert.deepStrictEqual((yield* neighbour.admin.client.adminFederationSettings.get()).data, {
        ...NO_TOGGLES,
        currency_code: defaultCurrencyCode(neighbour.tenant.id)
      })
    }))

  it.effect("unknown toggles and non-booleans are 422, one entry per field, and change nothing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const cases: Array<[unknown, Array<string>]> = [
        [{ teleport: true }, ["teleport"]],
        [{ listings: "yes" }, ["listings"]],
        [{ listings: 1, events: null }, ["listings", "events"]],
        [{ listings: true, whitelisted: true }, ["whitelisted"]]
      ]
      for (const [body, fields] of cases) {
        const res = yield* rawRequest("PUT", SETTINGS, { headers: c.adminHeaders, body: json(body) })
        assert.strictEqual(res.status, 422, `${json(body)}: ${res.text}`)
        for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
        assert.sameMembers(errorsOf(res.body).map((e) => e.field), fields, json(body))
      }
      const notAnObject = yield* rawRequest("PUT", SETTINGS, { headers: c.adminHeaders, body: "[true]" })
      assert.strictEqual(notAnObject.status, 422)
      assert.deepStrictEqual((yield* storedTenant(c.tenant)).toggles, NO_TOGGLES)
    }))

  it.effect("settings: no token is 401, members and brokers 403, another tenant's admin 401; super-admins may", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const other = yield* community({ signIn: "token" })
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const foreign = yield* apiClient({ ...other.admin.headers, ...tenantHeaders(c.tenant) })
      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.adminFederationSettings.get(),
        (client) => client.adminFederationSettings.update({ payload: { listings: true } })
      ]
      for (const request of requests) {
        yield* request(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const { client } of [c.member, broker]) yield* request(client).pipe(expectError(403, "FORBIDDEN"))
        yield* request(foreign).pipe(expectError(401, "AUTH_REQUIRED"))
      }
      assert.deepStrictEqual((yield* storedTenant(c.tenant)).toggles, NO_TOGGLES)

      const visiting = yield* superAdmin
      const client = yield* apiClient({ ...visiting.headers, ...tenantHeaders(c.tenant) })
      const changed = yield* client.adminFederationSettings.update({ payload: { groups: true } })
      assert.deepStrictEqual(changed.data, {
        ...NO_TOGGLES,
        groups: true,
        currency_code: defaultCurrencyCode(c.tenant.id)
      })
      // A second admin of the same community sees it too.
      const secondAdmin = yield* actor(yield* makeAdmin(c.tenant), "token")
      assert.isTrue((yield* secondAdmin.client.adminFederationSettings.get()).data.groups)
    }))
})
