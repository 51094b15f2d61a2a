import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { FeatureDefaults, ModuleDefaults, type Tenant } from "@timebank/domain"
import { PushFanout } from "@timebank/server"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { assertRefused, partnerPost, partnerRead, SENDER, writesCommunity } from "../federation/writesKit.js"
import { errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { type Actor, community, makeActor } from "../fixtures/community.js"
import { hoursFromNow } from "../fixtures/events.js"
import { makeApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeOrganisation, statusAndCodeOf } from "../fixtures/volunteering.js"
import { PushFakes, withPushFakes } from "../notifications/pushFakes.js"

const FEATURES = "/api/v2/admin/config/features"
const MODULES = "/api/v2/admin/config/modules"
const SETTINGS = "/api/v2/admin/settings"
const OFF = [403, "FEATURE_DISABLED"] as const

const json = (body: unknown) => JSON.stringify(body)

/** A client of its own address: event creation is limited per IP. */
const ownClient = (who: { readonly headers: Record<string, string> }) =>
  apiClient({ ...fromIp(randomIp()), ...who.headers })

const publicView = (tenant: Tenant) =>
  Effect.flatMap(
    apiClient({ "x-tenant-id": String(tenant.id) }),
    (client) => Effect.map(client.tenancy.current().pipe(expectOk), (res) => res.data)
  )

/** A member route of each feature the issue names. */
const featureProbes = (client: ApiClient) => ({
  listings: statusAndCodeOf(client.listings.list({ urlParams: {}, withResponse: true })),
  events: statusAndCodeOf(client.events.list({ urlParams: {}, withResponse: true })),
  groups: statusAndCodeOf(client.groups.list({ urlParams: {}, withResponse: true })),
  feed: statusAndCodeOf(client.feed.list({ urlParams: {}, withResponse: true }))
})
type Probed = keyof ReturnType<typeof featureProbes>
const PROBED: ReadonlyArray<Probed> = ["listings", "events", "groups", "feed"]

const expectProbes = (client: ApiClient, expected: (feature: Probed) => readonly [number, string | undefined]) =>
  Effect.forEach(
    PROBED,
    (feature) =>
      Effect.map(
        featureProbes(client)[feature],
        (outcome) => assert.deepStrictEqual(outcome, expected(feature), feature)
      )
  )

const setModules = (admin: Actor, modules: Record<string, boolean>) =>
  admin.client.adminConfig.setModules({ payload: modules }).pipe(expectOk)

/** A bell as the dispatcher writes it, and what the push fan-out does with it (as the background fiber would). */
const bellPushed = (user: Actor) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ id: string }>`
      INSERT INTO notifications (tenant_id, user_id, type, category, title, message, link, group_key)
      VALUES (${user.tenant.id}, ${user.id}, 'transaction_received', 'transactions', 'Hours', 'You got hours',
              '/wallet', ${randomUUID()})
      RETURNING id`.pipe(Effect.orDie)
    const fanout = yield* PushFanout
    return yield* fanout.deliver({ tenantId: user.tenant.id, notificationIds: [Number(row!.id)], userIds: [user.id] })
  }).pipe(Effect.provide(PushFanout.Default))

const recurringPayload = {
  title: "Weekly walk",
  description: "Round the park",
  start_time: hoursFromNow(48),
  recurrence_frequency: "daily" as const,
  recurrence_ends_after_count: 2
}

layer(withPushFakes((config) => TestApp(config)), { excludeTestServices: true, timeout: "180 seconds" })(
  "features, modules and settings",
  (it) => {
    it.effect("PUT features takes D3's switch and D17's partial map; both show at once on GET /api/v2/tenant", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const map = yield* c.admin.client.adminConfig.setFeature({
          payload: { listings: false, events: true, federation: true },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(map.data, { ...FeatureDefaults, listings: false, federation: true })
        assert.deepInclude((yield* publicView(c.tenant)).features, { listings: false, events: true, federation: true })

        const one = yield* c.admin.client.adminConfig.setFeature({ payload: { feature: "listings", enabled: true } })
        assert.deepStrictEqual(one.data, { feature: "listings", enabled: true })
        // An empty map changes nothing and answers every feature.
        const none = yield* c.admin.client.adminConfig.setFeature({ payload: {} })
        assert.deepStrictEqual(none.data, { ...FeatureDefaults, federation: true })
        assert.deepStrictEqual((yield* publicView(c.tenant)).features, { ...FeatureDefaults, federation: true })
      }))

    it.effect("listings, events, groups and feed off → their routes answer 403 FEATURE_DISABLED at once; back on", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const other = yield* community({ signIn: "token" })
        yield* expectProbes(c.member.client, () => [200, undefined])
        yield* c.admin.client.adminConfig.setFeature({
          payload: { listings: false, events: false, groups: false, feed: false }
        }).pipe(expectOk)
        yield* expectProbes(c.member.client, () => OFF)
        // Another community is not touched by these switches.
        yield* expectProbes(other.member.client, () => [200, undefined])
        const back: Array<Probed> = []
        for (const feature of PROBED) {
          yield* c.admin.client.adminConfig.setFeature({ payload: { feature, enabled: true } }).pipe(expectOk)
          back.push(feature)
          yield* expectProbes(c.member.client, (f) => back.includes(f) ? [200, undefined] : OFF)
        }
      }))

    it.effect("PUT modules merges a partial map, answers every module and shows on GET /config", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const changed = yield* c.admin.client.adminConfig.setModules({
          payload: { reviews: false, digests: false },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.deepStrictEqual(changed.data, { ...ModuleDefaults, reviews: false, digests: false })
        const again = yield* setModules(c.admin, { reviews: true })
        assert.deepStrictEqual(again.data, { ...ModuleDefaults, digests: false })
        assert.deepStrictEqual((yield* setModules(c.admin, {})).data, again.data)
        const config = yield* rawRequest("GET", "/api/v2/admin/config", { headers: c.admin.headers })
        assert.strictEqual(config.status, 200, config.text)
        assert.deepStrictEqual((config.body as { data: { modules: unknown } }).data.modules, again.data)
      }))

    it.effect("reviews off → writing and reading reviews of organisations and members is 403; back on", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const organisation = yield* makeOrganisation(c.admin)
        const reviews = c.member.client.reviews
        const write = (target_type: "organization" | "user", target_id: number) =>
          statusAndCodeOf(
            reviews.create({ payload: { target_type, target_id, rating: 5, comment: "Great" }, withResponse: true })
          )
        const read = (type: "organization" | "user", id: number) =>
          statusAndCodeOf(reviews.list({ path: { type, id }, urlParams: {}, withResponse: true }))
        assert.deepStrictEqual(yield* write("organization", organisation.id), [201, undefined])

        yield* setModules(c.admin, { reviews: false })
        assert.deepStrictEqual(yield* write("user", c.other.id), OFF)
        assert.deepStrictEqual(yield* read("organization", organisation.id), OFF)
        assert.deepStrictEqual(yield* read("user", c.other.id), OFF)
        const failure = yield* reviews.list({ path: { type: "user", id: c.other.id }, urlParams: {} }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
        assert.include(failure.message, "reviews")

        yield* setModules(c.admin, { reviews: true })
        const listed = yield* reviews.list({ path: { type: "organization", id: organisation.id }, urlParams: {} })
        assert.strictEqual(listed.data.length, 1)
        assert.deepStrictEqual(yield* read("user", c.other.id), [200, undefined])
        assert.deepStrictEqual(yield* write("user", c.other.id), [201, undefined])
      }))

    it.effect("reviews off → partners' reviews of members are refused like a federation toggle that is off", () =>
      Effect.gen(function*() {
        const c = yield* writesCommunity()
        const reader = yield* makeApiKey(c.tenant, { scopes: ["reviews:read"], partnerId: c.partner.id })
        const review = (rating: number) =>
          partnerPost("/reviews", c.key, { member_id: c.member.id, rating, comment: "Quick", reviewer: SENDER })
        const read = partnerRead(`/reviews?member_id=${c.member.id}`, reader)
        assert.strictEqual((yield* review(5)).status, 201)

        yield* setModules(c.admin, { reviews: false })
        assertRefused(yield* review(4), 503, "FEDERATION_DISABLED")
        assertRefused(yield* read, 503, "FEDERATION_DISABLED")
        yield* setModules(c.admin, { reviews: true })
        const listed = yield* read
        assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
        assert.strictEqual((listed.body as { data: ReadonlyArray<unknown> }).data.length, 1)
      }))

    it.effect("recurring_events off → recurring events and series are 403, plain events still work; back on", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const client = yield* ownClient(c.member)
        const created = yield* client.recurringEvents.create({ payload: recurringPayload }).pipe(expectOk)
        const occurrence = created.data.series_occurrences[0]!
        const series = yield* client.eventSeries.create({ payload: { title: "Walks" } }).pipe(expectOk)

        yield* setModules(c.admin, { recurring_events: false })
        const plain = yield* client.events.create({
          payload: { title: "Plain", description: "Once", start_time: hoursFromNow(24) },
          withResponse: true
        }).pipe(expectStatus(201))
        const update = () =>
          statusAndCodeOf(client.recurringEvents.update({
            path: { id: occurrence.id },
            payload: { scope: "all", title: "Walk and talk" },
            withResponse: true
          }))
        assert.deepStrictEqual(
          yield* statusAndCodeOf(client.recurringEvents.create({ payload: recurringPayload, withResponse: true })),
          OFF
        )
        assert.deepStrictEqual(yield* update(), OFF)
        assert.deepStrictEqual(
          yield* statusAndCodeOf(client.eventSeries.create({ payload: { title: "More" }, withResponse: true })),
          OFF
        )
        const link = () =>
          statusAndCodeOf(client.eventSeries.link({
            path: { id: plain.data.id },
            payload: { series_id: series.data.id },
            withResponse: true
          }))
        assert.deepStrictEqual(yield* link(), OFF)
        const failure = yield* client.recurringEvents.create({ payload: recurringPayload }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
        assert.include(failure.message, "recurring_events")
        const edited = yield* client.events.update({ path: { id: plain.data.id }, payload: { title: "Still plain" } })
        assert.strictEqual(edited.data.title, "Still plain")

        yield* setModules(c.admin, { recurring_events: true })
        assert.deepStrictEqual(yield* update(), [200, undefined])
        assert.deepStrictEqual(yield* link(), [200, undefined])
      }))

    it.effect("org_wallets off → the organisation's wallet routes (owner and admin) are 403; the rest still works", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token", fund: { member: 5 } })
        const organisation = yield* makeOrganisation(c.member)
        const { id } = organisation
        const dashboard = c.member.client.organisationDashboard
        const admin = c.admin.client.adminOrganisations
        const deposit = () =>
          statusAndCodeOf(dashboard.deposit({ path: { id }, headers: {}, payload: { amount: 1 }, withResponse: true }))
        assert.deepStrictEqual(yield* deposit(), [200, undefined])

        yield* setModules(c.admin, { org_wallets: false })
        const walletRoutes = {
          wallet: statusAndCodeOf(dashboard.wallet({ path: { id }, withResponse: true })),
          transactions: statusAndCodeOf(
            dashboard.walletTransactions({ path: { id }, urlParams: {}, withResponse: true })
          ),
          deposit: deposit(),
          autoPay: statusAndCodeOf(dashboard.autoPay({ path: { id }, payload: { enabled: true }, withResponse: true })),
          adjust: statusAndCodeOf(admin.adjustWallet({
            path: { id },
            headers: { "idempotency-key": randomUUID() },
            payload: { amount: 2, reason: "Grant" },
            withResponse: true
          })),
          adminTransactions: statusAndCodeOf(
            admin.walletTransactions({ path: { id }, urlParams: {}, withResponse: true })
          )
        }
        for (const [route, outcome] of Object.entries(walletRoutes)) assert.deepStrictEqual(yield* outcome, OFF, route)
        const stats = yield* dashboard.stats({ path: { id }, withResponse: true }).pipe(expectStatus(200))
        assert.strictEqual(stats.data.balance, 1)

        yield* setModules(c.admin, { org_wallets: true })
        const wallet = yield* dashboard.wallet({ path: { id } }).pipe(expectOk)
        // Nothing moved while the module was off.
        assert.strictEqual(wallet.data.balance, 1)
        assert.deepStrictEqual(yield* walletRoutes.adminTransactions, [200, undefined])
      }))

    it.effect("push off → subscribing is 403 and the fan-out sends nothing for that community; back on", () =>
      Effect.gen(function*() {
        const fakes = yield* PushFakes
        const c = yield* community({ signIn: "token" })
        const b = yield* community({ signIn: "token" })
        const token = (label: string) => `fcm-${label}-${randomUUID()}`
        const subscribe = (who: Actor, t: string) =>
          statusAndCodeOf(who.client.push.subscribe({ payload: { platform: "fcm", token: t }, withResponse: true }))
        const first = token("a")
        assert.deepStrictEqual(yield* subscribe(c.member, first), [201, undefined])
        assert.strictEqual((yield* bellPushed(c.member)).sent, 1)

        yield* setModules(c.admin, { push: false })
        assert.deepStrictEqual(yield* subscribe(c.member, token("a2")), OFF)
        const v2 = yield* statusAndCodeOf(
          c.member.client.pushV2.subscribe({ payload: { platform: "fcm", token: token("a3") }, withResponse: true })
        )
        assert.deepStrictEqual(v2, OFF)
        const before = fakes.received.filter((r) => r.target === first).length
        assert.deepStrictEqual(yield* bellPushed(c.member), { sent: 0, gone: 0, failed: 0, skipped: 0 })
        assert.strictEqual(fakes.received.filter((r) => r.target === first).length, before)
        // Another community still subscribes and gets its pushes.
        const theirs = token("b")
        assert.deepStrictEqual(yield* subscribe(b.member, theirs), [201, undefined])
        assert.strictEqual((yield* bellPushed(b.member)).sent, 1)

        yield* setModules(c.admin, { push: true })
        assert.deepStrictEqual(yield* subscribe(c.member, token("a4")), [201, undefined])
        assert.strictEqual((yield* bellPushed(c.member)).sent, 2)
      }))

    it.effect("settings carry the community's name: partial PUT trims it, GET and GET /api/v2/tenant show it", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const before = yield* c.admin.client.adminConfig.settings()
        assert.strictEqual(before.data.name, c.tenant.name)
        // Untrimmed text goes raw: the typed client refuses to send it.
        const changed = yield* rawRequest("PUT", SETTINGS, {
          headers: c.admin.headers,
          body: json({ name: "  Riverside Time Bank  " })
        })
        assert.strictEqual(changed.status, 200, changed.text)
        const after = yield* c.admin.client.adminConfig.settings()
        assert.deepStrictEqual(after.data, { ...before.data, name: "Riverside Time Bank" })
        assert.deepStrictEqual((changed.body as { data: unknown }).data, after.data)
        assert.strictEqual((yield* publicView(c.tenant)).name, "Riverside Time Bank")
        const both = yield* c.admin.client.adminConfig.updateSettings({
          payload: { name: "Riverside", timezone: "Europe/Paris" }
        })
        assert.deepInclude(both.data, { name: "Riverside", timezone: "Europe/Paris" })
      }))

    it.effect("bad switches, modules and names are 422 with their fields; nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const cases: Array<[string, unknown, Array<string | undefined>]> = [
          [FEATURES, { listings: "no", teleport: true }, ["listings", "teleport"]],
          [FEATURES, { listings: null }, ["listings"]],
          [FEATURES, { feature: "events", enabled: true, listings: false }, ["listings"]],
          [FEATURES, [true], [undefined]],
          [FEATURES, "listings", [undefined]],
          [MODULES, { reviews: "off", polls: false }, ["reviews", "polls"]],
          [MODULES, { push: null, org_wallets: 1 }, ["push", "org_wallets"]],
          [MODULES, [], [undefined]],
          [SETTINGS, { name: "" }, ["name"]],
          [SETTINGS, { name: "   " }, ["name"]],
          [SETTINGS, { name: "x".repeat(201) }, ["name"]],
          [SETTINGS, { name: 5, starting_balance: -1 }, ["name", "starting_balance"]]
        ]
        for (const [path, body, fields] of cases) {
          const res = yield* rawRequest("PUT", path, { headers: c.admin.headers, body: json(body) })
          assert.strictEqual(res.status, 422, `${path} ${json(body)}: ${res.text}`)
          for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
          assert.sameMembers(errorsOf(res.body).map((e) => e.field), fields, `${path} ${json(body)}`)
        }
        assert.deepStrictEqual((yield* setModules(c.admin, {})).data, ModuleDefaults)
        assert.deepStrictEqual((yield* publicView(c.tenant)).features, FeatureDefaults)
        assert.strictEqual((yield* c.admin.client.adminConfig.settings()).data.name, c.tenant.name)
      }))

    it.effect("no token → 401; member, broker and coordinator → 403; nothing changes", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
        const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
        const calls: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
          (client) => client.adminConfig.setFeature({ payload: { feed: false } }),
          (client) => client.adminConfig.setFeature({ payload: { feature: "feed", enabled: false } }),
          (client) => client.adminConfig.setModules({ payload: { push: false } }),
          (client) => client.adminConfig.settings(),
          (client) => client.adminConfig.updateSettings({ payload: { name: "Taken over" } })
        ]
        for (const call of calls) {
          yield* call(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
          for (const who of [c.member, broker, coordinator]) yield* call(who.client).pipe(expectError(403, "FORBIDDEN"))
        }
        const view = yield* publicView(c.tenant)
        assert.deepStrictEqual([view.features.feed, view.name], [true, c.tenant.name])
        assert.deepStrictEqual((yield* setModules(c.admin, {})).data, ModuleDefaults)
      }))
  }
)
