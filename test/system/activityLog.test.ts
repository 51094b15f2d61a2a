import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { type ActivityLogParams, type AuditEntry, CategoryId, UserId } from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, type Community, community, makeActor } from "../fixtures/community.js"
import { makeCategory } from "../fixtures/listings.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeAdmin, makeSuperAdmin, makeUser } from "../fixtures/users.js"

const LOG = "/api/v2/admin/system/activity-log"

const logOf = (client: ApiClient, urlParams: ActivityLogParams = {}) =>
  client.adminActivity.log({ urlParams, withResponse: true }).pipe(expectStatus(200))

const actionsOf = (entries: ReadonlyArray<AuditEntry>) => entries.map((e) => e.action)

const approvePending = (c: Community, name = "Pat") =>
  Effect.gen(function*() {
    const pending = yield* makeUser(c.tenant, { status: "pending", isApproved: false, firstName: name })
    yield* c.admin.client.adminUsers.approve({ path: { id: UserId.make(pending.id) }, withResponse: true }).pipe(
      expectStatus(200)
    )
    return pending
  })

/** Sets the audit rows' times (oldest first), so that the time filters have known days to pick from. */
const setTimes = (entries: ReadonlyArray<AuditEntry>, times: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      Effect.forEach(entries, (entry, i) =>
        sql`UPDATE admin_audit_log SET created_at = ${new Date(times[i]!)} WHERE id = ${entry.id}`, { discard: true })
  )

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("admin activity log", (it) => {
  it.effect(
    "admin writes are recorded with actor, action, target and redacted body; reads are not",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const admin = c.admin.client
        const pending = yield* approvePending(c)
        const category = yield* admin.adminCategories.create({ payload: { name: "Gardening" } })
        yield* admin.adminConfig.updateSettings({ payload: { listing_moderation: true } })
        yield* admin.adminConfig.setFeature({ payload: { feature: "blog", enabled: false } })
        const partner = yield* admin.federationPartners.create({
          payload: {
            name: "Partner Bank",
            protocol_type: "native",
            base_url: "https://partner.example/",
            credentials: { api_key: "tbk_never_logged", signing_secret: "tbs_never_logged" }
          }
        })
        const created = yield* admin.adminUsers.create({
          payload: {
            email: "new.person@example.org",
            first_name: "New",
            last_name: "Person",
            password: "hunter2-long!"
          }
        })
        // Reads leave no entry.
        yield* admin.adminUsers.list({ urlParams: {} })
        yield* admin.adminConfig.settings()
        yield* logOf(admin)

        const log = yield* logOf(admin)
        assert.deepStrictEqual(log.meta, { current_page: 1, per_page: 20, total: 6, total_pages: 1, has_more: false })
        assert.deepStrictEqual(actionsOf(log.data), [
          "users.created",
          "federation.partners.created",
          "config.features.updated",
          "settings.updated",
          "categories.created",
          "users.approve"
        ])
        const ada = { id: c.admin.id, name: "Ada Admin" }
        for (const entry of log.data) assert.deepStrictEqual(entry.actor, ada)
        const [user, bank, features, settings, gardening, approval] = log.data
        assert.deepInclude(approval, { target_type: "users", target_id: String(pending.id) })
        assert.deepInclude(approval!.details, {
          method: "POST",
          path: `/api/v2/admin/users/${pending.id}/approve`,
          status: 200
        })
        assert.deepInclude(gardening, { target_type: "categories", target_id: String(category.data.id) })
        assert.deepStrictEqual(gardening!.details, {
          method: "POST",
          path: "/api/v2/admin/categories",
          status: 201,
          request: { name: "Gardening" }
        })
        assert.deepInclude(settings, { target_type: "settings", target_id: null })
        assert.deepStrictEqual(settings!.details["request"], { listing_moderation: true })
        assert.deepInclude(features, { target_type: "config", target_id: null })
        assert.deepStrictEqual(features!.details["request"], { feature: "blog", enabled: false })
        assert.deepInclude(bank, { target_type: "federation", target_id: String(partner.data.id) })
        assert.deepInclude(bank!.details["request"] as object, { name: "Partner Bank", credentials: "[redacted]" })
        assert.deepInclude(user, { target_type: "users", target_id: String(created.data.id) })
        assert.deepInclude(user!.details["request"] as object, {
          email: "new.person@example.org",
          password: "[redacted]"
        })
        const wire = yield* rawRequest("GET", LOG, { headers: c.adminHeaders })
        for (const secret of ["hunter2-long!", "tbk_never_logged", "tbs_never_logged"]) {
          assert.notInclude(wire.text, secret)
        }
        const times = log.data.map((e) => DateTime.toEpochMillis(e.created_at))
        assert.deepStrictEqual(times, [...times].sort((a, b) => b - a))
      }),
    60_000
  )

  it.effect("failed writes (401, 403, 404, 409, 422) record nothing", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      yield* makeCategory(c.tenant, { name: "Taken" })
      const admin = c.admin.client
      const bad = yield* rawRequest("PUT", "/api/v2/admin/settings", {
        headers: c.adminHeaders,
        body: JSON.stringify({ starting_balance: -1 })
      })
      assert.strictEqual(bad.status, 422)
      yield* admin.adminUsers.approve({ path: { id: UserId.make(2_000_000_000) } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* admin.adminCategories.delete({ path: { id: CategoryId.make(2_000_000_000) } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* admin.adminCategories.create({ payload: { name: "Taken" } }).pipe(expectError(409, "ALREADY_EXISTS"))
      yield* c.member.client.adminConfig.updateSettings({ payload: { listing_moderation: true } }).pipe(
        expectError(403, "FORBIDDEN")
      )
      yield* c.visitor.client.adminConfig.updateSettings({ payload: { listing_moderation: true } }).pipe(
        expectError(401, "AUTH_REQUIRED")
      )
      const log = yield* logOf(admin)
      assert.deepStrictEqual(log.data, [])
      assert.strictEqual(log.meta.total, 0)
      const dashboard = yield* admin.adminActivity.dashboard()
      assert.deepStrictEqual(dashboard.data.filter((item) => item.kind === "audit"), [])
    }))

  it.effect("filters on actor, action, target type and time; pages are counted", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const bea = yield* actor(yield* makeAdmin(c.tenant, { firstName: "Bea", lastName: "Boss" }), "token")
      for (const name of ["One", "Two", "Three"]) yield* c.admin.client.adminCategories.create({ payload: { name } })
      yield* bea.client.adminConfig.updateSettings({ payload: { waitlist_enabled: false } })
      yield* c.admin.client.adminConfig.setFeature({ payload: { feature: "polls", enabled: false } })
      const admin = c.admin.client

      const byBea = yield* logOf(admin, { actor_id: UserId.make(bea.id) })
      assert.deepStrictEqual(actionsOf(byBea.data), ["settings.updated"])
      assert.deepStrictEqual(byBea.data[0]!.actor, { id: bea.id, name: "Bea Boss" })
      const created = yield* logOf(admin, { action: "categories.created" })
      assert.strictEqual(created.meta.total, 3)
      assert.deepStrictEqual(created.data.map((e) => e.details["request"]), [
        { name: "Three" },
        { name: "Two" },
        { name: "One" }
      ])
      assert.deepStrictEqual(actionsOf((yield* logOf(admin, { target_type: "config" })).data), [
        "config.features.updated"
      ])
      assert.strictEqual(
        (yield* logOf(admin, { actor_id: UserId.make(c.admin.id), target_type: "categories" }))
          .meta.total,
        3
      )
      assert.strictEqual((yield* logOf(admin, { action: "categories.deleted" })).meta.total, 0)

      const all = (yield* logOf(admin)).data
      const first = yield* logOf(admin, { per_page: 2 })
      assert.deepStrictEqual(first.meta, { current_page: 1, per_page: 2, total: 5, total_pages: 3, has_more: true })
      const last = yield* logOf(admin, { per_page: 2, page: 3 })
      assert.deepStrictEqual(last.meta, { current_page: 3, per_page: 2, total: 5, total_pages: 3, has_more: false })
      const second = yield* logOf(admin, { per_page: 2, page: 2 })
      assert.deepStrictEqual([...first.data, ...second.data, ...last.data].map((e) => e.id), all.map((e) => e.id))

      // Oldest first: 1 Mar, 2 Mar 09:00, 2 Mar 23:30, 3 Mar 00:00, 4 Mar.
      const oldestFirst = [...all].reverse()
      yield* setTimes(oldestFirst, [
        "2024-03-01T10:00:00Z",
        "2024-03-02T09:00:00Z",
        "2024-03-02T23:30:00Z",
        "2024-03-03T00:00:00Z",
        "2024-03-04T12:00:00Z"
      ])
      const ids = (params: ActivityLogParams) => Effect.map(logOf(admin, params), (page) => page.data.map((e) => e.id))
      const pick = (...indexes: ReadonlyArray<number>) => indexes.map((i) => oldestFirst[i]!.id)
      assert.deepStrictEqual(yield* ids({ from: "2024-03-02", to: "2024-03-02" }), pick(2, 1))
      assert.deepStrictEqual(yield* ids({ from: "2024-03-02T23:30:00Z", to: "2024-03-03T00:00:00Z" }), pick(3, 2))
      assert.deepStrictEqual(yield* ids({ from: "2024-03-03" }), pick(4, 3))
      assert.deepStrictEqual(yield* ids({ to: "2024-03-01" }), pick(0))
      assert.deepStrictEqual(yield* ids({ from: "2024-03-02T10:00:00+02:00", to: "2024-03-02" }), pick(2, 1))
      assert.deepStrictEqual(yield* ids({ from: "2024-03-05" }), [])

      const refused: ReadonlyArray<[string, string]> = [
        ["from=2024-03-03&to=2024-03-02", "from"],
        ["from=2024-03-02T12:00:00Z&to=2024-03-02T11:59:59Z", "from"],
        ["from=yesterday", "from"],
        ["to=2024-02-30", "to"],
        ["to=2024-03-02T10:00:00", "to"],
        ["actor_id=abc", "actor_id"],
        ["actor_id=0", "actor_id"],
        ["per_page=101", "per_page"],
        ["page=0", "page"],
        ["action=", "action"]
      ]
      for (const [query, field] of refused) {
        const res = yield* rawRequest("GET", `${LOG}?${query}`, { headers: c.adminHeaders })
        assert.strictEqual(res.status, 422, `${query}: ${res.text}`)
        assert.deepStrictEqual(errorsOf(res.body).map((e) => [e.code, e.field]), [["VALIDATION_ERROR", field]], query)
      }
    }), 60_000)

  it.effect("another community's entries and events never show; its admin is 401 here", () =>
    Effect.gen(function*() {
      const a = yield* community({ signIn: "token" })
      const b = yield* community({ signIn: "token" })
      yield* approvePending(b)
      yield* b.admin.client.adminCategories.create({ payload: { name: "Theirs" } })
      yield* a.admin.client.adminCategories.create({ payload: { name: "Ours" } })

      const log = yield* logOf(a.admin.client)
      assert.deepStrictEqual(log.data.map((e) => e.details["request"]), [{ name: "Ours" }])
      assert.strictEqual((yield* logOf(a.admin.client, { actor_id: UserId.make(b.admin.id) })).meta.total, 0)
      assert.strictEqual((yield* logOf(b.admin.client)).meta.total, 2)

      const sql = yield* SqlClient.SqlClient
      const theirs = new Set(
        (yield* sql<{ id: string }>`SELECT id FROM outbox_events WHERE tenant_id = ${b.tenant.id}`).map((r) =>
          Number(r.id)
        )
      )
      assert.isAbove(theirs.size, 0)
      const dashboard = yield* a.admin.client.adminActivity.dashboard()
      for (const item of dashboard.data) {
        if (item.kind === "event") assert.isFalse(theirs.has(item.id), `event ${item.id} is b's`)
        else assert.strictEqual(item.actor?.id, a.admin.id)
      }
      const foreign = yield* apiClient({ ...b.admin.headers, ...tenantHeaders(a.tenant) })
      yield* foreign.adminActivity.log({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* foreign.adminActivity.dashboard().pipe(expectError(401, "AUTH_REQUIRED"))
    }), 60_000)

  it.effect("no token is 401; members, brokers and coordinators are 403", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const coordinator = yield* makeActor(c.tenant, { role: "coordinator" }, "token")
      yield* c.visitor.client.adminActivity.log({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* c.visitor.client.adminActivity.dashboard().pipe(expectError(401, "AUTH_REQUIRED"))
      for (const who of [c.member, broker, coordinator]) {
        yield* who.client.adminActivity.log({ urlParams: {} }).pipe(expectError(403, "FORBIDDEN"))
        yield* who.client.adminActivity.dashboard().pipe(expectError(403, "FORBIDDEN"))
      }
    }))

  it.effect("a platform super-admin acting on a community is recorded there as the actor", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const sam = yield* actor(yield* makeSuperAdmin({ firstName: "Sam", lastName: "Super" }))
      const there = yield* apiClient({ ...sam.headers, ...tenantHeaders(c.tenant) })
      yield* there.adminConfig.updateSettings({ payload: { waitlist_auto_promote: false } })

      const log = yield* logOf(c.admin.client)
      assert.strictEqual(log.data.length, 1)
      assert.strictEqual(log.data[0]!.action, "settings.updated")
      assert.deepStrictEqual(log.data[0]!.actor, { id: sam.id, name: "Sam Super" })
      // The super-admin reads the same log there; their own (platform) community has no such entry.
      assert.deepStrictEqual((yield* logOf(there)).data.map((e) => e.id), [log.data[0]!.id])
      const home = yield* logOf(sam.client, { actor_id: UserId.make(sam.id) })
      assert.strictEqual(home.meta.total, 0)
    }))

  it.effect(
    "dashboard activity: the latest 50 audit entries and domain events, newest first, no payloads",
    () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        // 25 categories and an approval: 26 entries and as many events (`CategoryCreated`, `UserApproved`), > 50.
        yield* Effect.forEach(
          Array.from({ length: 25 }, (_, i) => `Topic ${i}`),
          (name) => c.admin.client.adminCategories.create({ payload: { name } }),
          { concurrency: 4, discard: true }
        )
        yield* approvePending(c)
        const dashboard = yield* c.admin.client.adminActivity.dashboard()
        const items = dashboard.data
        assert.strictEqual(items.length, 50)
        const times = items.map((item) => DateTime.toEpochMillis(item.created_at))
        assert.deepStrictEqual(times, [...times].sort((a, b) => b - a))
        const audits = items.filter((item) => item.kind === "audit")
        const events = items.filter((item) => item.kind === "event")
        assert.isAbove(audits.length, 0)
        assert.isAbove(events.length, 0)
        for (const event of events) assert.sameMembers(Object.keys(event), ["kind", "id", "event_type", "created_at"])
        // The last approval is newer than the event it raised (the entry is written once the write answered).
        const firstAudit = items.findIndex((item) => item.kind === "audit")
        const firstApproved = items.findIndex((item) => item.kind === "event" && item.event_type === "UserApproved")
        assert.isBelow(firstAudit, firstApproved)
        // The audit items are the log's newest entries; the events are the community's newest outbox rows.
        const log = yield* logOf(c.admin.client, { per_page: 50 })
        assert.deepStrictEqual(
          audits.map(({ kind: _, ...entry }) => entry),
          log.data.slice(0, audits.length)
        )
        const sql = yield* SqlClient.SqlClient
        const outbox = yield* sql<{ id: string; event_type: string }>`
        SELECT id, event_type FROM outbox_events WHERE tenant_id = ${c.tenant.id}
        ORDER BY created_at DESC, id DESC LIMIT 50`
        assert.deepStrictEqual(
          events.map((e) => [e.id, e.event_type]),
          outbox.slice(0, events.length).map((r) => [Number(r.id), r.event_type])
        )
      }),
    120_000
  )
})
