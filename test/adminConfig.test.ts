import { assert, layer } from "@effect/vitest"
import type { AdminSettings } from "@timebank/domain"
import { TenantService } from "@timebank/server"
import { Effect } from "effect"
import { errorsOf } from "./fixtures/bodies.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const dataOf = <A = AdminSettings>(body: unknown) => (body as { data: A }).data
const json = (body: unknown) => JSON.stringify(body)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const FEATURES = "/api/v2/admin/config/features"
const SETTINGS = "/api/v2/admin/settings"

const publicFeatures = (tenant: { readonly id: number }) =>
  Effect.map(
    rawRequest("GET", "/api/v2/tenant", { headers: tenantHeaders(tenant) }),
    (res) => dataOf<{ features: Record<string, boolean> }>(res.body).features
  )

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("tenant admin configuration", (it) => {
  it.effect("PUT features switches one feature; GET /api/v2/tenant shows it at once", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const headers = yield* authHeaders(yield* makeAdmin(tenant))
      assert.strictEqual((yield* publicFeatures(tenant))["events"], true)

      const off = yield* rawRequest("PUT", FEATURES, { headers, body: json({ feature: "events", enabled: false }) })
      assert.strictEqual(off.status, 200, off.text)
      assert.deepStrictEqual(off.body, { data: { feature: "events", enabled: false }, meta: {} })
      const features = yield* publicFeatures(tenant)
      assert.strictEqual(features["events"], false)
      assert.strictEqual(features["listings"], true)

      const client = yield* apiClient(headers)
      const on = yield* client.adminConfig.setFeature({ payload: { feature: "federation", enabled: true } })
      assert.deepStrictEqual(on.data, { feature: "federation", enabled: true })
      assert.include(yield* publicFeatures(tenant), { events: false, federation: true })
    }))

  it.effect("GET settings has every default; PUT merges a partial change and GET shows the result", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant({ settings: { starting_balance: 4 } })
      const headers = yield* authHeaders(yield* makeAdmin(tenant))
      const initial = yield* rawRequest("GET", SETTINGS, { headers })
      assert.strictEqual(initial.status, 200, initial.text)
      assert.deepStrictEqual(dataOf(initial.body), {
        registration_requires_approval: true,
        starting_balance: 4,
        allow_negative_balance: false,
        listing_moderation: false,
        waitlist_enabled: true,
        waitlist_auto_promote: true,
        default_language: "en",
        "notifications.default_frequency": "daily",
        timezone: "UTC"
      })

      const changed = yield* rawRequest("PUT", SETTINGS, {
        headers,
        body: json({ allow_negative_balance: true, default_language: "de", timezone: "Europe/Berlin" })
      })
      assert.strictEqual(changed.status, 200, changed.text)
      includes(dataOf(changed.body), {
        allow_negative_balance: true,
        default_language: "de",
        timezone: "Europe/Berlin",
        starting_balance: 4,
        waitlist_enabled: true
      })
      const client = yield* apiClient(headers)
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
      const publicView = yield* rawRequest("GET", "/api/v2/tenant", { headers: tenantHeaders(tenant) })
      includes(dataOf(publicView.body), { default_language: "de", timezone: "Europe/Berlin" })
      // An empty change is a valid partial update that changes nothing.
      const empty = yield* rawRequest("PUT", SETTINGS, { headers, body: "{}" })
      assert.strictEqual(empty.status, 200)
      assert.deepStrictEqual(dataOf(empty.body), second.data)
    }))

  it.effect("unknown features or settings and wrong types are 422, one entry per field", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const headers = yield* authHeaders(yield* makeAdmin(tenant))
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
      const settings = yield* rawRequest("GET", SETTINGS, { headers })
      includes(dataOf(settings.body), { starting_balance: 0, default_language: "en", timezone: "UTC" })
      assert.strictEqual((yield* publicFeatures(tenant))["events"], true)
    }))

  it.effect("no token is 401; members and brokers are 403; another tenant's admin is 401 there", () =>
    Effect.gen(function*() {
      const a = yield* makeTenant()
      const b = yield* makeTenant()
      const adminA = yield* authHeaders(yield* makeAdmin(a))
      const member = yield* authHeaders(yield* makeUser(b))
      const broker = yield* authHeaders(yield* makeUser(b, { role: "broker" }))
      const requests = [
        ["PUT", FEATURES, json({ feature: "blog", enabled: false })],
        ["GET", SETTINGS, undefined],
        ["PUT", SETTINGS, json({ listing_moderation: true })]
      ] as const
      for (const [method, path, body] of requests) {
        const options = body === undefined ? {} : { body }
        const anonymous = yield* rawRequest(method, path, { headers: tenantHeaders(b), ...options })
        assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
        assert.strictEqual(errorsOf(anonymous.body)[0]!.code, "AUTH_REQUIRED")
        for (const headers of [member, broker]) {
          const res = yield* rawRequest(method, path, { headers, ...options })
          assert.strictEqual(res.status, 403, `${method} ${path}`)
          assert.strictEqual(errorsOf(res.body)[0]!.code, "FORBIDDEN")
        }
        // Admin of A, addressing B with A's token: not a credential there (decisions D4).
        const foreign = yield* rawRequest(method, path, { headers: { ...adminA, ...tenantHeaders(b) }, ...options })
        assert.strictEqual(foreign.status, 401, `${method} ${path}`)
      }
      const features = yield* publicFeatures(b)
      assert.strictEqual(features["blog"], true)
      const stored = yield* Effect.flatMap(TenantService, (tenants) => tenants.get(b.id))
      assert.strictEqual(stored.settings.listing_moderation, false)
    }))

  it.effect("a platform super-admin may configure any tenant", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const headers = { ...(yield* authHeaders(yield* makeSuperAdmin())), ...tenantHeaders(tenant) }
      const off = yield* rawRequest("PUT", FEATURES, { headers, body: json({ feature: "blog", enabled: false }) })
      assert.strictEqual(off.status, 200, off.text)
      assert.strictEqual((yield* publicFeatures(tenant))["blog"], false)
      const changed = yield* rawRequest("PUT", SETTINGS, { headers, body: json({ waitlist_enabled: false }) })
      assert.strictEqual(changed.status, 200)
      assert.strictEqual(dataOf<Record<string, unknown>>(changed.body)["waitlist_enabled"], false)
    }))
})
