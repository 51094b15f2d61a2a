import { SqlClient, Statement } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Actor, CurrentTenant, CurrentUser, type Tenant, type TenantId, type UserId } from "@timebank/domain"
import { EventsService } from "@timebank/server"
import { Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import { makeEvent, makeSeries, type TestEvent } from "./fixtures/events.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const idsOf = (body: unknown) => dataOf<Array<{ id: number }>>(body).map((e) => e.id)
const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000
type Method = "GET" | "POST" | "PUT" | "DELETE"
type Headers = Record<string, string>
type Card = {
  id: number
  is_series: boolean
  series_count: number | null
  recurrence_frequency: string | null
  series_occurrences?: Array<{ id: number; start_time: string; end_time: string | null; occurrence_date: string }>
}

const call = (method: Method, path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

const cardsOf = (query: string, headers: Headers) =>
  Effect.gen(function*() {
    const res = yield* call("GET", `${EVENTS}${query}`, headers)
    assert.strictEqual(res.status, 200, res.text)
    return dataOf<Array<Card>>(res.body)
  })

/** Every page of a list, following the cursor. */
const walk = (query: string, perPage: number, headers: Headers) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const res = yield* call(
        "GET",
        `${EVENTS}?per_page=${perPage}${query}${cursor === undefined ? "" : `&cursor=${encodeURIComponent(cursor)}`}`,
        headers
      )
      assert.strictEqual(res.status, 200, res.text)
      const page = res.body as { data: Array<{ id: number }>; meta: Record<string, unknown> }
      assert.isAtMost(page.data.length, perPage)
      ids.push(...page.data.map((e) => e.id))
      cursor = page.meta["cursor"] as string | undefined
      pages++
    } while (cursor !== undefined && pages < 40)
    return { ids, pages }
  })

const outboxOf = (tenant: Tenant, type: string) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ payload: Record<string, unknown> }>`
      SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`.pipe(
      Effect.map((rows) => rows.map((r) => r.payload))
    ))

const seriesIdOf = (event: TestEvent) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ series_id: string | null }>`SELECT series_id FROM events WHERE id = ${event.id}`.pipe(
        Effect.map((rows) => (rows[0]!.series_id === null ? null : Number(rows[0]!.series_id)))
      )
  )

const setTimes = (event: TestEvent, startsInHours: number, hours: number | null) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) => {
    const start = new Date(Date.now() + startsInHours * HOUR)
    return sql`UPDATE events SET start_time = ${start},
      end_time = ${hours === null ? null : new Date(start.getTime() + hours * HOUR)} WHERE id = ${event.id}`
  }).pipe(Effect.orDie)

const asActor = (user: { id: number }, tenant: Tenant): Actor => ({
  userId: user.id as UserId,
  tenantId: tenant.id as TenantId,
  actingTenantId: tenant.id as TenantId,
  role: "member",
  status: "active",
  isApproved: true,
  isSuperAdmin: false,
  isGod: false,
  isPlatformUser: false,
  sessionId: null,
  impersonatorId: null
})

/** A standalone series created over HTTP. */
const createSeries = (headers: Headers, title = "Book club") =>
  Effect.gen(function*() {
    const res = yield* call("POST", `${EVENTS}/series`, headers, { title })
    assert.strictEqual(res.status, 201, res.text)
    return dataOf<{ id: number }>(res.body).id
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("event series", (it) => {
  describe("lists collapse a recurring series to one card", () => {
    it.effect("upcoming shows the soonest upcoming occurrence, past the most recent past one; never the template", () =>
      Effect.gen(function*() {
        const { anonymous, member } = yield* community()
        // -50h and -26h are over; +1h (cancelled) is skipped; -1h is running (started, ends in 1 h).
        const series = yield* makeSeries(member, {
          frequency: "daily",
          startsInHours: [-50, -26, -1, 1, 23, 47],
          cancelled: [3]
        })
        const [p1, p2, running, , next, last] = series.occurrences
        const single = yield* makeEvent(member, { startsInHours: 5 })
        const pastSingle = yield* makeEvent(member, { startsInHours: -10 })

        const upcoming = yield* cardsOf("", anonymous)
        assert.deepStrictEqual(upcoming.map((c) => c.id), [running!.id, single.id])
        includes(upcoming[0], { is_series: true, series_count: 5, recurrence_frequency: "daily" })
        includes(upcoming[1], { is_series: false, series_count: null, recurrence_frequency: null })
        for (const card of upcoming) assert.notProperty(card, "series_occurrences")

        const past = yield* cardsOf("?when=past", anonymous)
        assert.deepStrictEqual(past.map((c) => c.id), [pastSingle.id, p2!.id])
        includes(past[1], { is_series: true, series_count: 5, recurrence_frequency: "daily" })

        // Once the running one is over the next one stands for the series, and the past card moves up.
        yield* setTimes(running!, -3, 2)
        assert.deepStrictEqual((yield* cardsOf("", anonymous)).map((c) => c.id), [single.id, next!.id])
        assert.deepStrictEqual((yield* cardsOf("?when=past", anonymous)).map((c) => c.id), [
          running!.id,
          pastSingle.id
        ])
        // A whole series cancelled but its last occurrence: that one is the card.
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE events SET status = 'cancelled' WHERE id IN (${next!.id}, ${p1!.id})`
        )
        const after = yield* cardsOf("", anonymous)
        assert.deepStrictEqual(after.map((c) => c.id), [single.id, last!.id])
        includes(after[1], { series_count: 3 })
      }))

    it.effect("the keyset cursor pages many series and single events without repeats or gaps, both ways", () =>
      Effect.gen(function*() {
        const { anonymous, member, other } = yield* community()
        type Item = { id: number; start: number; key: string }
        const items: Array<Item> = []
        // Six interleaved series of five occurrences (two in the past each) and nine single events.
        for (let s = 0; s < 6; s++) {
          const series = yield* makeSeries(s % 2 === 0 ? member : other, {
            startsInHours: [-40 - s, -20 - s, 2 + s, 12 + s, 30 + s],
            frequency: s % 2 === 0 ? "weekly" : "monthly"
          })
          for (const o of series.occurrences) {
            items.push({ id: o.id, start: o.start.getTime(), key: `s${series.template.id}` })
          }
        }
        for (let i = 0; i < 9; i++) {
          const startsIn = i < 6 ? 3 + i * 2 : -15 - i * 3
          const event = yield* makeEvent(member, { startsInHours: startsIn })
          const row = yield* Effect.flatMap(
            SqlClient.SqlClient,
            (sql) => sql<{ start_time: Date }>`SELECT start_time FROM events WHERE id = ${event.id}`
          )
          items.push({ id: event.id, start: row[0]!.start_time.getTime(), key: `e${event.id}` })
        }
        const now = Date.now()
        const collapse = (list: ReadonlyArray<Item>) => {
          const seen = new Set<string>()
          return list.filter((item) => (seen.has(item.key) ? false : (seen.add(item.key), true))).map((i) => i.id)
        }
        const byStart = (a: Item, b: Item) => a.start - b.start || a.id - b.id
        // Events here last 2 hours: upcoming = ends now or later.
        const expectedUpcoming = collapse(items.filter((i) => i.start + 2 * HOUR >= now).sort(byStart))
        const expectedPast = collapse(items.filter((i) => i.start + 2 * HOUR < now).sort(byStart).reverse())
        assert.strictEqual(expectedUpcoming.length, 12)
        assert.strictEqual(expectedPast.length, 9)

        for (const perPage of [1, 2, 5, 12]) {
          const up = yield* walk("", perPage, anonymous)
          assert.deepStrictEqual(up.ids, expectedUpcoming, `per_page ${perPage}`)
          assert.strictEqual(up.pages, Math.ceil(12 / perPage))
        }
        for (const perPage of [1, 4, 9]) {
          const down = yield* walk("&when=past", perPage, anonymous)
          assert.deepStrictEqual(down.ids, expectedPast, `past per_page ${perPage}`)
        }
        // Filters apply before collapsing: the organiser filter keeps other's series as one card each.
        const mine = yield* walk(`&user_id=${other.id}`, 2, anonymous)
        assert.strictEqual(mine.ids.length, 3)
        assert.deepStrictEqual(
          mine.ids,
          expectedUpcoming.filter((id) => mine.ids.includes(id))
        )
      }))

    it.effect("the card is the first occurrence that passes the filters; standalone series do not collapse", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders } = yield* community()
        const series = yield* makeSeries(member, { startsInHours: [2, 26, 50], title: "Repair cafe" })
        // An occurrence edited on its own (another title) is still in the series but not found by the search.
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE events SET title = 'Lunch' WHERE id = ${series.occurrences[0]!.id}`
        )
        assert.deepStrictEqual(idsOf((yield* call("GET", `${EVENTS}?search=repair`, anonymous)).body), [
          series.occurrences[1]!.id
        ])
        assert.deepStrictEqual(idsOf((yield* call("GET", `${EVENTS}?search=lunch`, anonymous)).body), [
          series.occurrences[0]!.id
        ])

        const standalone = yield* createSeries(memberHeaders)
        const a = yield* makeEvent(member, { startsInHours: 100 })
        const b = yield* makeEvent(member, { startsInHours: 124 })
        for (const event of [a, b]) {
          const res = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, { series_id: standalone })
          assert.strictEqual(res.status, 200, res.text)
        }
        const cards = yield* cardsOf("", anonymous)
        assert.deepStrictEqual(cards.map((c) => c.id), [series.occurrences[0]!.id, a.id, b.id])
        includes(cards[1], { is_series: false, series_count: null })
      }))

    it.effect("series fields cost one more query for the whole page, and none when no series is on it", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        for (let i = 0; i < 4; i++) {
          yield* makeSeries(member, { startsInHours: [i + 1, i + 25, i + 49] })
          yield* makeEvent(member, { startsInHours: i + 10 })
        }
        const statementsOf = (withViewer: boolean, query: { readonly when?: "upcoming" | "past" } = {}) =>
          Effect.gen(function*() {
            const statements: Array<string> = []
            const listed = Effect.flatMap(EventsService, (events) =>
              Statement.withTransformer(
                events.list({ per_page: 50, ...query }),
                (statement) =>
                  Effect.sync(() => {
                    statements.push(statement.compile()[0])
                    return statement
                  })
              ))
            const page =
              yield* (withViewer ? Effect.provideService(listed, CurrentUser, asActor(member, tenant)) : listed)
                .pipe(Effect.provide(EventsService.Default), Effect.provideService(CurrentTenant, tenant))
            return { statements, page }
          })
        const anonymous = yield* statementsOf(false)
        assert.strictEqual(anonymous.page.data.length, 8)
        assert.deepStrictEqual(anonymous.page.data.map((e) => e.series_count), [3, 3, 3, 3, null, null, null, null])
        // The page, organisers, counts, poll links and the series summaries (no categories here: no query for them).
        assert.strictEqual(anonymous.statements.length, 5, anonymous.statements.join("\n"))
        assert.strictEqual(anonymous.statements.filter((s) => /event_recurrence_rules/.test(s)).length, 1)
        assert.strictEqual((yield* statementsOf(true)).statements.length, 6)
        // No series on the page (nothing is past here): no series query.
        const past = yield* statementsOf(false, { when: "past" })
        assert.strictEqual(past.page.data.length, 0)
        assert.strictEqual(past.statements.length, 1)
      }))

    it.effect("the list query reads an events index in order and probes siblings through events_parent", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community()
        const sql = yield* SqlClient.SqlClient
        // Enough rows, analysed, for the planner to prefer indexes: 40 weekly series of 26 and 800 past events.
        yield* sql`
          WITH t AS (
            INSERT INTO events (tenant_id, user_id, title, description, start_time, is_recurring_template)
            SELECT ${tenant.id}, ${member.id}, 'Series', 'x', now() - interval '12 weeks' + g * interval '1 hour', true
            FROM generate_series(1, 40) g RETURNING id, start_time
          )
          INSERT INTO events (tenant_id, user_id, title, description, start_time, parent_event_id)
          SELECT ${tenant.id}, ${member.id}, 'Series', 'x', t.start_time + w * interval '1 week', t.id
          FROM t, generate_series(0, 25) w`
        yield* sql`
          INSERT INTO events (tenant_id, user_id, title, description, start_time)
          SELECT ${tenant.id}, ${member.id}, 'Past', 'x', now() - g * interval '1 hour' FROM generate_series(1, 800) g`
        yield* sql`ANALYZE events`
        const plans: Array<string> = []
        let explaining = false
        const explained = Effect.flatMap(
          EventsService,
          (events) =>
            Statement.withTransformer(events.list({ per_page: 20 }), (statement) =>
              Effect.gen(function*() {
                const [text, params] = statement.compile()
                // The EXPLAIN runs under this transformer too.
                if (/FROM events e/.test(text) && !explaining) {
                  explaining = true
                  const rows = yield* sql.unsafe<{ "QUERY PLAN": string }>(`EXPLAIN ${text}`, params)
                  plans.push(rows.map((r) => r["QUERY PLAN"]).join("\n"))
                }
                return statement
              }).pipe(Effect.orDie))
        )
        const page = yield* explained.pipe(
          Effect.provide(EventsService.Default),
          Effect.provideService(CurrentTenant, tenant)
        )
        assert.strictEqual(page.data.length, 20)
        assert.isTrue(page.data.every((e) => e.series_count === 26))
        const plan = plans[0]!
        assert.match(plan, /Index Scan( Backward)? using events_tenant_(start|ends) on events e/, plan)
        assert.match(plan, /events_parent/, plan)
        assert.notMatch(plan, /Seq Scan/, plan)
      }))
  })

  describe("detail of a recurring series", () => {
    it.effect("template and occurrence list up to 50 upcoming, not cancelled dates in order; others have none", () =>
      Effect.gen(function*() {
        const { anonymous, member } = yield* community()
        const hours = [-48, -24, ...Array.from({ length: 53 }, (_, i) => 1 + i * 24)]
        const series = yield* makeSeries(member, { startsInHours: hours, frequency: "daily", cancelled: [3] })
        const upcoming = series.occurrences.filter((_, i) => i >= 2 && i !== 3).slice(0, 50)
        for (const id of [series.template.id, series.occurrences[0]!.id, series.occurrences[10]!.id]) {
          const res = yield* call("GET", `${EVENTS}/${id}`, anonymous)
          assert.strictEqual(res.status, 200, res.text)
          const event = dataOf<Card>(res.body)
          includes(event, { id, is_series: true, series_count: 54, recurrence_frequency: "daily" })
          const dates = event.series_occurrences!
          assert.strictEqual(dates.length, 50)
          assert.deepStrictEqual(dates.map((d) => d.id), upcoming.map((o) => o.id))
          assert.deepStrictEqual(dates[0], {
            id: upcoming[0]!.id,
            start_time: upcoming[0]!.start.toISOString(),
            end_time: new Date(upcoming[0]!.start.getTime() + 2 * HOUR).toISOString(),
            occurrence_date: upcoming[0]!.start.toISOString().slice(0, 10)
          })
        }
        const template = dataOf<Card & { is_recurring_template: boolean }>(
          (yield* call("GET", `${EVENTS}/${series.template.id}`, anonymous)).body
        )
        assert.isTrue(template.is_recurring_template)

        const single = yield* makeEvent(member)
        const plain = dataOf<Card>((yield* call("GET", `${EVENTS}/${single.id}`, anonymous)).body)
        includes(plain, { is_series: false, series_count: null, recurrence_frequency: null })
        assert.notProperty(plain, "series_occurrences")

        // A series with nothing ahead: an empty list. A template without a rule: no frequency.
        const over = yield* makeSeries(member, { startsInHours: [-30, -6] })
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`DELETE FROM event_recurrence_rules WHERE event_id = ${over.template.id}`
        )
        const overView = dataOf<Card>((yield* call("GET", `${EVENTS}/${over.occurrences[1]!.id}`, anonymous)).body)
        includes(overView, { is_series: true, series_count: 2, recurrence_frequency: null })
        assert.deepStrictEqual(overView.series_occurrences, [])
      }))
  })

  describe("POST /events/series", () => {
    it.effect("a member names a series (201 with its shape); EventSeriesCreated; bad input 422 per field", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const res = yield* call("POST", `${EVENTS}/series`, memberHeaders, {
          title: "  Tuesday walks ",
          description: "Different routes"
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<Record<string, unknown>>(res.body)
        assert.hasAllKeys(created, ["id", "title", "description", "user_id", "created_at"])
        includes(created, { title: "Tuesday walks", description: "Different routes", user_id: member.id })
        const [row] = yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) =>
            sql<Record<string, unknown>>`SELECT tenant_id, user_id, title FROM event_series WHERE id = ${created["id"]}`
        )
        assert.deepStrictEqual(row, {
          tenant_id: String(tenant.id),
          user_id: String(member.id),
          title: "Tuesday walks"
        })
        assert.deepStrictEqual(yield* outboxOf(tenant, "EventSeriesCreated"), [
          { series_id: created["id"], user_id: member.id, title: "Tuesday walks" }
        ])
        const bare = yield* call("POST", `${EVENTS}/series`, memberHeaders, { title: "No description" })
        assert.strictEqual(bare.status, 201)
        includes(dataOf(bare.body), { description: null })

        for (
          const [body, fields] of [
            [{}, ["title"]],
            [{ title: "   " }, ["title"]],
            [{ title: "x".repeat(256) }, ["title"]],
            [{ title: 5, description: "x".repeat(20_001) }, ["title", "description"]]
          ] as const
        ) {
          const bad = yield* call("POST", `${EVENTS}/series`, memberHeaders, body)
          assert.strictEqual(bad.status, 422, bad.text)
          assert.strictEqual(codeOf(bad.body), "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(bad.body), [...fields])
        }
        assert.strictEqual((yield* outboxOf(tenant, "EventSeriesCreated")).length, 2)
      }))

    it.effect("needs a token (401); a visiting super-admin is not a member here (403); feature off is 403", () =>
      Effect.gen(function*() {
        const { anonymous, tenant } = yield* community()
        const anon = yield* call("POST", `${EVENTS}/series`, anonymous, { title: "x" })
        assert.strictEqual(anon.status, 401)
        assert.strictEqual(codeOf(anon.body), "AUTH_REQUIRED")
        const visiting = yield* call("POST", `${EVENTS}/series`, yield* authHeaders(yield* makeSuperAdmin(), tenant), {
          title: "x"
        })
        assert.strictEqual(visiting.status, 403, visiting.text)
        assert.strictEqual(codeOf(visiting.body), "FORBIDDEN")

        const off = yield* community({ features: { events: false } })
        const event = yield* makeEvent(off.member)
        for (
          const [path, body] of [
            [`${EVENTS}/series`, { title: "x" }],
            [`${EVENTS}/${event.id}/series`, { series_id: null }]
          ] as const
        ) {
          const res = yield* call("POST", path, off.memberHeaders, body)
          assert.strictEqual(res.status, 403, res.text)
          assert.strictEqual(codeOf(res.body), "FEATURE_DISABLED")
        }
      }))
  })

  describe("POST /events/{id}/series", () => {
    it.effect("the organiser links to their series and unlinks with null; CommunityEventUpdated; no-op is silent", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const seriesId = yield* createSeries(memberHeaders)
        const event = yield* makeEvent(member)
        const linked = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, { series_id: seriesId })
        assert.strictEqual(linked.status, 200, linked.text)
        includes(dataOf(linked.body), { id: event.id, series_id: seriesId, is_series: false })
        assert.strictEqual(yield* seriesIdOf(event), seriesId)
        const [updated] = yield* outboxOf(tenant, "CommunityEventUpdated")
        includes(updated, { event_id: event.id, fields: ["series_id"], changed: [], updated_by: member.id })
        includes((updated as { event: Record<string, unknown> }).event, { series_id: seriesId })

        const again = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, { series_id: seriesId })
        assert.strictEqual(again.status, 200)
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 1)

        const unlinked = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, { series_id: null })
        assert.strictEqual(unlinked.status, 200, unlinked.text)
        includes(dataOf(unlinked.body), { series_id: null })
        assert.isNull(yield* seriesIdOf(event))
        assert.strictEqual((yield* outboxOf(tenant, "CommunityEventUpdated")).length, 2)
        // The detail reads the link too.
        includes(dataOf((yield* call("GET", `${EVENTS}/${event.id}`, memberHeaders)).body), { series_id: null })
      }))

    it.effect("an admin links any event to any series here; others' series and others' events are 403", () =>
      Effect.gen(function*() {
        const { adminHeaders, member, memberHeaders, other, otherHeaders } = yield* community()
        const membersSeries = yield* createSeries(memberHeaders)
        const othersSeries = yield* createSeries(otherHeaders)
        const event = yield* makeEvent(member)
        const othersEvent = yield* makeEvent(other)

        const foreignSeries = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, {
          series_id: othersSeries
        })
        assert.strictEqual(foreignSeries.status, 403, foreignSeries.text)
        assert.strictEqual(codeOf(foreignSeries.body), "FORBIDDEN")
        const notOrganiser = yield* call("POST", `${EVENTS}/${othersEvent.id}/series`, memberHeaders, {
          series_id: membersSeries
        })
        assert.strictEqual(notOrganiser.status, 403, notOrganiser.text)
        assert.strictEqual(codeOf(notOrganiser.body), "FORBIDDEN")
        const unlinkOthers = yield* call("POST", `${EVENTS}/${othersEvent.id}/series`, memberHeaders, {
          series_id: null
        })
        assert.strictEqual(unlinkOthers.status, 403)
        assert.isNull(yield* seriesIdOf(event))
        assert.isNull(yield* seriesIdOf(othersEvent))

        const byAdmin = yield* call("POST", `${EVENTS}/${event.id}/series`, adminHeaders, { series_id: othersSeries })
        assert.strictEqual(byAdmin.status, 200, byAdmin.text)
        assert.strictEqual(yield* seriesIdOf(event), othersSeries)
      }))

    it.effect("a series of another community or none is 422 on series_id; bad bodies 422; cancelled 409", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const elsewhere = yield* community()
        const foreignSeries = yield* createSeries(elsewhere.memberHeaders)
        const event = yield* makeEvent(member)
        for (const seriesId of [foreignSeries, 99_999_999]) {
          const res = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, { series_id: seriesId })
          assert.strictEqual(res.status, 422, res.text)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.deepStrictEqual(fieldsOf(res.body), ["series_id"])
        }
        for (const body of [{}, { series_id: "abc" }, { series_id: 0 }, { series_id: 1.5 }]) {
          const res = yield* call("POST", `${EVENTS}/${event.id}/series`, memberHeaders, body)
          assert.strictEqual(res.status, 422, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(fieldsOf(res.body), ["series_id"])
        }
        assert.isNull(yield* seriesIdOf(event))

        const mine = yield* createSeries(memberHeaders)
        const cancelled = yield* makeEvent(member, { status: "cancelled" })
        const res = yield* call("POST", `${EVENTS}/${cancelled.id}/series`, memberHeaders, { series_id: mine })
        assert.strictEqual(res.status, 409, res.text)
        assert.strictEqual(codeOf(res.body), "EVENT_CANCELLED")
        assert.isNull(yield* seriesIdOf(cancelled))
      }))

    it.effect("another community's event is 404 for its members and admins; unknown and bad ids 404; 401 without token", () =>
      Effect.gen(function*() {
        const { adminHeaders, anonymous, member, memberHeaders } = yield* community()
        const mine = yield* createSeries(memberHeaders)
        const foreign = yield* makeEvent(yield* makeUser(yield* makeTenant()))
        for (const headers of [memberHeaders, adminHeaders]) {
          for (const id of [String(foreign.id), "99999999", "abc", "0"]) {
            const res = yield* call("POST", `${EVENTS}/${id}/series`, headers, { series_id: mine })
            assert.strictEqual(res.status, 404, `${id}: ${res.text}`)
            assert.strictEqual(codeOf(res.body), "NOT_FOUND")
          }
        }
        assert.isNull(yield* seriesIdOf(foreign))
        const event = yield* makeEvent(member)
        const anon = yield* call("POST", `${EVENTS}/${event.id}/series`, anonymous, { series_id: mine })
        assert.strictEqual(anon.status, 401)
      }))
  })
})
