import { assert, layer } from "@effect/vitest"
import { ConfigAreas } from "@timebank/domain"
import { RankingHealth } from "@timebank/server"
import { Effect } from "effect"
import { errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor, visitor } from "../fixtures/community.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const CONFIG = "/api/v2/admin/config"
const json = (body: unknown) => JSON.stringify(body)
const defaults = (area: keyof typeof ConfigAreas) => ConfigAreas[area].defaults as unknown

const publicTenant = (tenant: { readonly id: number }) =>
  Effect.flatMap(visitor(tenant), ({ client }) => Effect.map(client.tenancy.current(), (res) => res.data))

/** Bodies the contract cannot express go raw; each must be a 422 naming exactly `fields`. */
const expect422 = (headers: Record<string, string>, cases: ReadonlyArray<readonly [string, unknown, Array<string>]>) =>
  Effect.forEach(
    cases,
    ([path, body, fields]) =>
      Effect.map(rawRequest("PUT", `${CONFIG}/${path}`, { headers, body: json(body) }), (res) => {
        assert.strictEqual(res.status, 422, `${path} ${json(body)}: ${res.text}`)
        for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
        assert.sameMembers(errorsOf(res.body).map((e) => e.field), fields, `${path} ${json(body)}`)
      }),
    { discard: true }
  )

/** Every area's GET, as the admin's client reads it (languages' `default` comes from the settings). */
const allAreas = (client: ApiClient) =>
  Effect.all({
    ai: client.adminConfigAreas.ai(),
    feed_algorithm: client.adminConfigAreas.feedAlgorithm(),
    images: client.adminConfigAreas.images(),
    seo: client.adminConfigAreas.seo(),
    languages: client.adminConfigAreas.languages(),
    native_app: client.adminConfigAreas.nativeApp()
  }).pipe(
    Effect.map((areas): Record<string, unknown> =>
      Object.fromEntries(Object.entries(areas).map(([k, v]) => [k, v.data]))
    )
  )

const allDefaults = {
  ai: defaults("ai"),
  feed_algorithm: defaults("feed_algorithm"),
  images: defaults("images"),
  seo: defaults("seo"),
  languages: defaults("languages"),
  native_app: defaults("native_app")
}

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("configuration areas", (it) => {
  it.effect("each area: GET has the defaults, a partial PUT merges over them and GET shows the result", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const areas = c.admin.client.adminConfigAreas
      assert.deepStrictEqual(yield* allAreas(c.admin.client), allDefaults)

      const ai = yield* areas.updateAi({ payload: { enabled: true }, withResponse: true }).pipe(expectStatus(200))
      assert.deepStrictEqual(ai.data, { enabled: true, provider: "none", base_url: null, model: null })
      const provider = yield* areas.updateAi({
        payload: { provider: "openai_compatible", base_url: "https://llm.example.org/v1", model: "small" }
      })
      assert.deepStrictEqual(provider.data, {
        enabled: true,
        provider: "openai_compatible",
        base_url: "https://llm.example.org/v1",
        model: "small"
      })
      const feed = yield* areas.updateFeedAlgorithm({ payload: { engagement_weight: 3.5 } })
      assert.deepStrictEqual(feed.data, { recency_weight: 10, engagement_weight: 3.5, connection_weight: 0 })
      yield* areas.updateImages({ payload: { max_upload_mb: 8 } })
      const images = yield* areas.updateImages({ payload: { allowed_types: ["image/png"] } })
      assert.deepStrictEqual(images.data, { max_upload_mb: 8, allowed_types: ["image/png"] })
      // The typed client would refuse untrimmed text before sending it; the server trims what arrives.
      const trimmed = yield* rawRequest("PUT", `${CONFIG}/seo`, {
        headers: c.adminHeaders,
        body: json({ title: "  Riverside Time Bank ", description: "Hours" })
      })
      assert.strictEqual(trimmed.status, 200, trimmed.text)
      const seo = yield* areas.seo()
      assert.deepStrictEqual(seo.data, { title: "Riverside Time Bank", description: "Hours", indexable: true })
      yield* areas.updateNativeApp({ payload: { ios_url: "https://apps.example.org/ios", min_version: "2.4.1" } })
      const app = yield* areas.updateNativeApp({ payload: { force_update: true } })
      assert.deepStrictEqual(app.data, {
        ios_url: "https://apps.example.org/ios",
        android_url: null,
        min_version: "2.4.1",
        force_update: true
      })
      // An empty PUT is a partial update that changes nothing.
      const empty = yield* areas.updateSeo({ payload: {}, withResponse: true }).pipe(expectStatus(200))
      assert.deepStrictEqual(empty.data, seo.data)

      const expected = {
        ...allDefaults,
        ai: provider.data,
        feed_algorithm: feed.data,
        images: images.data,
        seo: seo.data,
        native_app: app.data
      }
      assert.deepStrictEqual(yield* allAreas(c.admin.client), expected)
      // GET /config is all of it in one document, with features and modules as the gates read them.
      yield* c.admin.client.adminConfig.setFeature({ payload: { feature: "blog", enabled: false } })
      const overview = yield* areas.config({ withResponse: true }).pipe(expectStatus(200))
      const { features, modules, ...rest } = overview.data
      assert.deepStrictEqual(rest, expected)
      assert.include(features, { blog: false, events: true, federation: false, matching: true, help: true })
      assert.deepStrictEqual(modules, {
        reviews: true,
        reminders: true,
        recurring_events: true,
        org_wallets: true,
        digests: true,
        push: true
      })
    }))

  it.effect("bad values are 422 with the dotted field, and nothing is stored", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* expect422(c.adminHeaders, [
        ["ai", { provider: "openai" }, ["provider"]],
        ["ai", { enabled: "yes" }, ["enabled"]],
        ["ai", { base_url: "ftp://llm.example.org" }, ["base_url"]],
        ["ai", { base_url: "not a url", temperature: 1 }, ["base_url", "temperature"]],
        ["ai", { provider: "openai_compatible" }, ["base_url", "model"]],
        ["ai", { provider: "openai_compatible", base_url: "https://llm.example.org" }, ["model"]],
        ["ai", { model: "" }, ["model"]],
        ["feed-algorithm", { recency_weight: 11 }, ["recency_weight"]],
        ["feed-algorithm", { engagement_weight: -1, connection_weight: "5" }, [
          "engagement_weight",
          "connection_weight"
        ]],
        ["feed-algorithm", { popularity_weight: 1 }, ["popularity_weight"]],
        ["images", { max_upload_mb: 0 }, ["max_upload_mb"]],
        ["images", { max_upload_mb: 21 }, ["max_upload_mb"]],
        ["images", { max_upload_mb: 2.5 }, ["max_upload_mb"]],
        ["images", { max_upload_mb: "5" }, ["max_upload_mb"]],
        ["images", { allowed_types: ["image/gif"] }, ["allowed_types.0"]],
        ["images", { allowed_types: ["image/png", "image/bmp"] }, ["allowed_types.1"]],
        ["images", { allowed_types: [] }, ["allowed_types"]],
        ["images", { allowed_types: "image/png" }, ["allowed_types"]],
        ["seo", { title: "x".repeat(121) }, ["title"]],
        ["seo", { description: 5, indexable: "no" }, ["description", "indexable"]],
        ["seo", { keywords: "time bank" }, ["keywords"]],
        ["languages", { default: "it" }, ["default"]],
        ["languages", { enabled: ["en", "xx"] }, ["enabled.1"]],
        ["languages", { enabled: [] }, ["enabled"]],
        ["languages", { enabled: ["de"] }, ["default"]],
        ["languages", { default: "fr", enabled: ["en"] }, ["default"]],
        ["languages", { fallback: "en" }, ["fallback"]],
        ["native-app", { ios_url: "apps.example.org" }, ["ios_url"]],
        ["native-app", { android_url: "javascript:alert(1)" }, ["android_url"]],
        ["native-app", { min_version: "v2" }, ["min_version"]],
        ["native-app", { force_update: 1, store: "x" }, ["force_update", "store"]],
        ["algorithm/feed", { algorithm: "random" }, ["algorithm"]],
        ["algorithm/feed", { algorithm: "hybrid", weights: { recency: 11 } }, ["weights.recency"]],
        ["algorithm/listings", { algorithm: "hybrid", weights: { recency: "high" } }, ["weights.recency"]],
        ["algorithm/members", { weights: { recency: 1 } }, ["algorithm"]],
        ["algorithm/matching", { algorithm: "hybrid", extra: 1 }, ["extra"]]
      ])
      const notAnObject = yield* rawRequest("PUT", `${CONFIG}/seo`, { headers: c.adminHeaders, body: "[1]" })
      assert.strictEqual(notAnObject.status, 422)
      assert.deepStrictEqual(yield* allAreas(c.admin.client), allDefaults)
      const algorithms = yield* c.admin.client.adminConfigAreas.algorithms()
      assert.deepStrictEqual(algorithms.data, defaults("algorithms"))
    }))

  it.effect("languages: `default` is the default_language setting, and must be one of the enabled", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const areas = c.admin.client.adminConfigAreas
      const setting = Effect.map(c.admin.client.adminConfig.settings(), (res) => res.data.default_language)

      const german = yield* areas.updateLanguages({ payload: { default: "de" }, withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.deepStrictEqual(german.data, { default: "de", enabled: ["en", "de", "fr", "es"] })
      assert.strictEqual(yield* setting, "de")
      assert.strictEqual((yield* publicTenant(c.tenant)).default_language, "de")

      const fewer = yield* areas.updateLanguages({ payload: { enabled: ["fr", "de"] } })
      assert.deepStrictEqual(fewer.data, { default: "de", enabled: ["fr", "de"] })
      yield* expect422(c.adminHeaders, [
        ["languages", { default: "es" }, ["default"]],
        ["languages", { enabled: ["en", "fr"] }, ["default"]]
      ])
      assert.strictEqual(yield* setting, "de")

      const both = yield* areas.updateLanguages({ payload: { default: "es", enabled: ["es", "en"] } })
      assert.deepStrictEqual(both.data, { default: "es", enabled: ["es", "en"] })
      assert.strictEqual(yield* setting, "es")
      // The setting changed through /settings is what the languages area shows.
      yield* c.admin.client.adminConfig.updateSettings({ payload: { default_language: "en" } })
      assert.deepStrictEqual((yield* areas.languages()).data, { default: "en", enabled: ["es", "en"] })
      // …and /settings refuses a language the community has not enabled, like the languages area does.
      const refused = yield* rawRequest("PUT", "/api/v2/admin/settings", {
        headers: c.adminHeaders,
        body: JSON.stringify({ default_language: "fr" })
      })
      assert.strictEqual(refused.status, 422)
      assert.deepStrictEqual(errorsOf(refused.body).map((e) => [e.code, e.field]), [[
        "VALIDATION_ERROR",
        "default_language"
      ]])
      assert.strictEqual(yield* setting, "en")
      assert.deepStrictEqual((yield* areas.config()).data.languages, { default: "en", enabled: ["es", "en"] })
    }))

  it.effect("seo and native app are shown on the public GET /api/v2/tenant, without a token", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const before = yield* publicTenant(c.tenant)
      assert.deepStrictEqual(before.seo, defaults("seo"))
      assert.deepStrictEqual(before.native_app, defaults("native_app"))
      assert.strictEqual(before.features["events"], true)

      const areas = c.admin.client.adminConfigAreas
      yield* areas.updateSeo({ payload: { title: "Riverside", indexable: false } })
      yield* areas.updateNativeApp({ payload: { android_url: "https://play.example.org/riverside" } })
      const after = yield* publicTenant(c.tenant)
      assert.deepStrictEqual(after.seo, { title: "Riverside", description: null, indexable: false })
      assert.deepStrictEqual(after.native_app, {
        ios_url: null,
        android_url: "https://play.example.org/riverside",
        min_version: null,
        force_update: false
      })
      const raw = yield* rawRequest("GET", "/api/v2/tenant", { headers: c.anonymous })
      assert.strictEqual(raw.status, 200)
      assert.deepInclude((raw.body as { data: Record<string, unknown> }).data, { seo: after.seo, id: c.tenant.id })
    }))

  it.effect("algorithms: PUT sets one area (weights kept when left out); unknown areas are 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const areas = c.admin.client.adminConfigAreas
      assert.deepStrictEqual((yield* areas.algorithms({ withResponse: true }).pipe(expectStatus(200))).data, {
        feed: { algorithm: "recency", weights: {} },
        listings: { algorithm: "recency", weights: {} },
        members: { algorithm: "recency", weights: {} },
        matching: { algorithm: "relevance", weights: {} }
      })
      const listings = yield* areas.setAlgorithm({
        path: { area: "listings" },
        payload: { algorithm: "hybrid", weights: { recency: 2, relevance: 5.5 } },
        withResponse: true
      }).pipe(expectStatus(200))
      assert.deepStrictEqual(listings.data, { algorithm: "hybrid", weights: { recency: 2, relevance: 5.5 } })
      const relevance = yield* areas.setAlgorithm({ path: { area: "listings" }, payload: { algorithm: "relevance" } })
      assert.deepStrictEqual(relevance.data, { algorithm: "relevance", weights: { recency: 2, relevance: 5.5 } })
      yield* areas.setAlgorithm({ path: { area: "members" }, payload: { algorithm: "hybrid", weights: {} } })

      const all = yield* areas.algorithms()
      assert.deepStrictEqual(all.data, {
        feed: { algorithm: "recency", weights: {} },
        listings: relevance.data,
        members: { algorithm: "hybrid", weights: {} },
        matching: { algorithm: "relevance", weights: {} }
      })
      const health = yield* areas.algorithmHealth()
      assert.deepStrictEqual(health.data.map((h) => [h.area, h.algorithm]), [
        ["feed", "recency"],
        ["listings", "relevance"],
        ["members", "hybrid"],
        ["matching", "relevance"]
      ])
      for (const area of ["teleport", "Feed", "1"]) {
        const res = yield* rawRequest("PUT", `${CONFIG}/algorithm/${area}`, {
          headers: c.adminHeaders,
          body: json({ algorithm: "hybrid" })
        })
        assert.strictEqual(res.status, 404, res.text)
        assert.strictEqual(errorsOf(res.body)[0]!.code, "NOT_FOUND")
      }
    }))

  it.effect("algorithm-health lists the four areas with each area's last ranking run in this tenant", () =>
    Effect.gen(function*() {
      const a = yield* community({ signIn: "token" })
      const b = yield* community({ signIn: "token" })
      const initial = yield* a.admin.client.adminConfigAreas.algorithmHealth({ withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.deepStrictEqual(initial.data, [
        { area: "feed", algorithm: "recency", last_run_at: null, latency_ms: null, runs: 0 },
        { area: "listings", algorithm: "recency", last_run_at: null, latency_ms: null, runs: 0 },
        { area: "members", algorithm: "recency", last_run_at: null, latency_ms: null, runs: 0 },
        { area: "matching", algorithm: "relevance", last_run_at: null, latency_ms: null, runs: 0 }
      ])
      // A ranking as the features run it (they measure themselves through the process's RankingHealth).
      const started = Date.now()
      const health = yield* RankingHealth
      for (let i = 0; i < 2; i++) yield* health.measure(a.tenant.id, "members", Effect.sleep("20 millis"))

      const after = yield* a.admin.client.adminConfigAreas.algorithmHealth()
      const members = after.data.find((h) => h.area === "members")!
      assert.strictEqual(members.runs, 2)
      assert.isAtLeast(members.latency_ms!, 15)
      assert.isAtLeast(Date.parse(members.last_run_at!), started)
      assert.match(members.last_run_at!, /Z$/)
      assert.deepStrictEqual(
        after.data.filter((h) => h.area !== "members"),
        initial.data.filter((h) => h.area !== "members")
      )
      // Tenant B ranked nothing.
      const other = yield* b.admin.client.adminConfigAreas.algorithmHealth()
      assert.deepStrictEqual(other.data, initial.data)
    }))

  it.effect("a change in one tenant is never visible in another", () =>
    Effect.gen(function*() {
      const a = yield* community({ signIn: "token" })
      const b = yield* community({ signIn: "token" })
      const areasA = a.admin.client.adminConfigAreas
      yield* areasA.updateSeo({ payload: { title: "Tenant A" } })
      yield* areasA.updateImages({ payload: { max_upload_mb: 2 } })
      yield* areasA.updateAi({ payload: { enabled: true } })
      yield* areasA.updateLanguages({ payload: { default: "fr", enabled: ["fr"] } })
      yield* areasA.setAlgorithm({ path: { area: "feed" }, payload: { algorithm: "hybrid" } })
      assert.strictEqual((yield* areasA.seo()).data.title, "Tenant A")

      assert.deepStrictEqual(yield* allAreas(b.admin.client), allDefaults)
      assert.deepStrictEqual((yield* b.admin.client.adminConfigAreas.algorithms()).data, defaults("algorithms"))
      const publicB = yield* publicTenant(b.tenant)
      assert.deepStrictEqual(publicB.seo, defaults("seo"))
      assert.strictEqual(publicB.default_language, "en")
      assert.strictEqual((yield* b.admin.client.adminConfig.settings()).data.default_language, "en")
    }))

  it.effect("no token is 401; members, brokers and coordinators are 403; a super-admin may", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const other = yield* community({ signIn: "token" })
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      // Admin of another tenant, addressing this one with its token: not a credential here (decisions D4).
      const foreign = yield* apiClient({ ...other.adminHeaders, ...tenantHeaders(c.tenant) })
      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.adminConfigAreas.config(),
        (client) => client.adminConfigAreas.ai(),
        (client) => client.adminConfigAreas.updateAi({ payload: { enabled: true } }),
        (client) => client.adminConfigAreas.feedAlgorithm(),
        (client) => client.adminConfigAreas.updateFeedAlgorithm({ payload: { recency_weight: 1 } }),
        (client) => client.adminConfigAreas.images(),
        (client) => client.adminConfigAreas.updateImages({ payload: { max_upload_mb: 1 } }),
        (client) => client.adminConfigAreas.seo(),
        (client) => client.adminConfigAreas.updateSeo({ payload: { indexable: false } }),
        (client) => client.adminConfigAreas.languages(),
        (client) => client.adminConfigAreas.updateLanguages({ payload: { default: "de" } }),
        (client) => client.adminConfigAreas.nativeApp(),
        (client) => client.adminConfigAreas.updateNativeApp({ payload: { force_update: true } }),
        (client) => client.adminConfigAreas.algorithms(),
        (client) => client.adminConfigAreas.setAlgorithm({ path: { area: "feed" }, payload: { algorithm: "hybrid" } }),
        (client) => client.adminConfigAreas.algorithmHealth()
      ]
      for (const request of requests) {
        yield* request(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const who of [c.member, broker, coordinator]) {
          yield* request(who.client).pipe(expectError(403, "FORBIDDEN"))
        }
        yield* request(foreign).pipe(expectError(401, "AUTH_REQUIRED"))
      }
      assert.deepStrictEqual(yield* allAreas(c.admin.client), allDefaults)
      assert.deepStrictEqual((yield* c.admin.client.adminConfigAreas.algorithms()).data, defaults("algorithms"))

      const superAdmin = yield* actor(yield* makeSuperAdmin(), "token")
      const platform = yield* apiClient({ ...superAdmin.headers, ...tenantHeaders(c.tenant) })
      yield* platform.adminConfigAreas.updateSeo({ payload: { title: "Set by the platform" }, withResponse: true })
        .pipe(expectStatus(200))
      assert.strictEqual((yield* publicTenant(c.tenant)).seo.title, "Set by the platform")
    }))
})
