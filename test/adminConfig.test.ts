import { assert, layer } from "@effect/vitest"
import { TenantService } from "@timebank/server"
import { Effect } from "effect"
import { errorsOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "./fixtures/client.js"
import { actor, makeActor, visitor } from "./fixtures/community.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { makeAdmin, makeSuperAdmin } from "./fixtures/users.js"

const json = (body: unknown) => JSON.stringify(body)

const FEATURES = "/api/v2/admin/config/features"
const SETTINGS = "/api/v2/admin/settings"

const publicFeatures = (tenant: { readonly id: number }) =>
  Effect.flatMap(visitor(tenant), ({ client }) => Effect.map(client.tenancy.current(), (res) => res.data.features))

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("tenant admin configuration", (it) => {
  it.effect("PUT features switches one feature; GET /api/v2/tenant shows it at once", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const { client } = yield* actor(yield* makeAdmin(tenant))
      assert.strictEqual((yield* publicFeatures(tenant))["events"], true)

      const off = yield* client.adminConfig.setFeature({
        payload: { feature: "events", enabled: false },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.deepStrictEqual(off, { data: { feature: "events", enabled: false }, meta: {} })
      const features = yield* publicFeatures(tenant)
      assert.strictEqual(features["events"], false)
      assert.strictEqual(features["listings"], true)

      const on = yield* client.adminConfig.setFeature({ payload: { feature: "federation", enabled: true } })
      assert.deepStrictEqual(on.data, { feature: "federation", enabled: true })
      assert.include(yield* publicFeatures(tenant), { events: false, federation: true })
    }))

  it.effect("GET settings has every default; PUT merges a partial change and GET shows the result", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant({ settings: { starting_balance: 4 } })
      const { client } = yield* actor(yield* makeAdmin(tenant))
      const initial = yield* client.adminConfig.settings({ withResponse: true }).pipe(expectStatus(200))
      assert.deepStrictEqual(initial.data, {
        registration_requires_approval: true,
        starting_balance: 4,
        allow_negative_balance: false,
        listing_moderation: false,
        waitlist_enabled: true,
        waitlist_auto_promote: true,
        default_language: "en",
        "notifications.default_frequency": "daily",
        group_approval_required: false,
        name: tenant.name,
        timezone: "UTC"
      })

      const changed = yield* client.adminConfig.updateSettings({
        payload: { allow_negative_balance: true, default_language: "de", timezone: "Europe/Berlin" },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.deepInclude(changed.data, {
        allow_negative_balance: true,
        default_language: "de",
        timezone: "Europe/Berlin",
        starting_balance: 4,
        waitlist_enabled: true
      })
      const second = yield* client.adminConfig.updateSettings({
        payload: { "notifications.default_frequency": "instant", starting_balance: 1.5 }
      })
      assert.include(second.data, {
        "notifications.default_frequency": "instant",
        starting_balance: 1.5,
        allow_negative_balance: true,
        timezone: "Europe/Berlin"
      })
      const reread = yield* client.adminConfig.settings()
      assert.deepStrictEqual(reread.data, second.data)
      // The public view follows the settings it shows.
      const publicView = yield* Effect.flatMap(visitor(tenant), (v) => v.client.tenancy.current())
      assert.deepInclude(publicView.data, { default_language: "de", timezone: "Europe/Berlin" })
      // An empty change is a valid partial update that changes nothing.
      const empty = yield* client.adminConfig.updateSettings({ payload: {}, withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.deepStrictEqual(empty.data, second.data)
    }))

  it.effect("unknown features or settings and wrong types are 422, one entry per field", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const { client, headers } = yield* actor(yield* makeAdmin(tenant))
      // Bodies the contract cannot express (wrong types, unknown keys) go raw.
      const cases: Array<[string, unknown, Array<string>]> = [
        [FEATURES, { feature: "teleport", enabled: true }, ["feature"]],
        [FEATURES, { feature: "events", enabled: "no" }, ["enabled"]],
        [FEATURES, { feature: "events", enabled: 0 }, ["enabled"]],
        [FEATURES, { feature: "nope", enabled: null }, ["feature", "enabled"]],
        [FEATURES, { enabled: true }, ["feature"]],
        [SETTINGS, { starting_balance: "five", allow_negative_balance: "yes" }, [
          "starting_balance",
          "allow_negative_balance"
        ]],
        [SETTINGS, { color_scheme: "dark" }, ["color_scheme"]],
        [SETTINGS, { default_language: "xx", timezone: "Nowhere/City" }, ["default_language", "timezone"]],
        [SETTINGS, { starting_balance: -1 }, ["starting_balance"]]
      ]
      for (const [path, body, fields] of cases) {
        const res = yield* rawRequest("PUT", path, { headers, body: json(body) })
        assert.strictEqual(res.status, 422, `${path} ${json(body)}: ${res.text}`)
        for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
        assert.sameMembers(errorsOf(res.body).map((e) => e.field), fields, json(body))
      }
      const notAnObject = yield* rawRequest("PUT", SETTINGS, { headers, body: "[1]" })
      assert.strictEqual(notAnObject.status, 422)
      // Nothing was changed by the refused requests.
      const settings = yield* client.adminConfig.settings()
      assert.deepInclude(settings.data, { starting_balance: 0, default_language: "en", timezone: "UTC" })
      assert.strictEqual((yield* publicFeatures(tenant))["events"], true)
    }))

  it.effect("no token is 401; members and brokers are 403; another tenant's admin is 401 there", () =>
    Effect.gen(function*() {
      const a = yield* makeTenant()
      const b = yield* makeTenant()
      const adminA = yield* actor(yield* makeAdmin(a))
      const member = yield* makeActor(b)
      const broker = yield* makeActor(b, { role: "broker" })
      // Admin of A, addressing B with A's token: not a credential there (decisions D4).
      const foreign = yield* apiClient({ ...adminA.headers, ...tenantHeaders(b) })
      const anonymous = yield* visitor(b)
      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.adminConfig.setFeature({ payload: { feature: "blog", enabled: false } }),
        (client) => client.adminConfig.settings(),
        (client) => client.adminConfig.updateSettings({ payload: { listing_moderation: true } })
      ]
      for (const request of requests) {
        yield* request(anonymous.client).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const { client } of [member, broker]) yield* request(client).pipe(expectError(403, "FORBIDDEN"))
        yield* request(foreign).pipe(expectError(401, "AUTH_REQUIRED"))
      }
      const features = yield* publicFeatures(b)
      assert.strictEqual(features["blog"], true)
      const stored = yield* Effect.flatMap(TenantService, (tenants) => tenants.get(b.id))
      assert.strictEqual(stored.settings.listing_moderation, false)
    }))

  it.effect("a platform super-admin may configure any tenant", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const superAdmin = yield* actor(yield* makeSuperAdmin())
      const client = yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(tenant) })
      yield* client.adminConfig.setFeature({ payload: { feature: "blog", enabled: false }, withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.strictEqual((yield* publicFeatures(tenant))["blog"], false)
      const changed = yield* client.adminConfig.updateSettings({
        payload: { waitlist_enabled: false },
        withResponse: true
      })
        .pipe(expectStatus(200))
      assert.strictEqual(changed.data.waitlist_enabled, false)
    }))
})
