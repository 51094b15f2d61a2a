import { SqlClient, Statement } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import {
  type Actor,
  CurrentTenant,
  CurrentUser,
  type EventId,
  type ListEventsParams,
  type Tenant,
  type TenantId,
  type UserId
} from "@timebank/domain"
import { EventsService } from "@timebank/server"
import { Effect } from "effect"
import { type ApiClient, expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { asJson, createEventSeries, eventCursor, makeEvent, makeSeries, type TestEvent } from "../../fixtures/events.js"
import { TestApp } from "../../fixtures/TestApp.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const HOUR = 3_600_000
type Card = {
  id: number
  is_series: boolean
  series_count: number | null
  recurrence_frequency: string | null
  series_occurrences?: Array<{ id: number; start_time: string; end_time: string | null; occurrence_date: string }>
}

const cardsOf = (urlParams: ListEventsParams, client: ApiClient) =>
  Effect.map(client.events.list({ urlParams }).pipe(expectOk), (page) => page.data)

const detailOf = (client: ApiClient, id: EventId) => client.events.get({ path: { id } }).pipe(expectOk)

/** Every page of a list, following the cursor. */
const walk = (urlParams: ListEventsParams, perPage: number, client: ApiClient) =>
  Effect.gen(function*() {
    const ids: Array<number> = []
    let cursor: string | undefined
    let pages = 0
    do {
      const page = yield* client.events.list({
        urlParams: {
          ...urlParams,
          per_page: perPage,
          ...(cursor === undefined ? {} : { cursor: eventCursor(cursor) })
        }
      }).pipe(expectOk)
      assert.isAtMost(page.data.length, perPage)
      ids.push(...page.data.map((e) => e.id))
      cursor = page.meta.cursor
      pages++
    } while (cursor !== undefined && pages < 40)
    return { ids, pages }
  })

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

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("event series: lists and detail", (it) => {
  describe("lists collapse a recurring series to one card", () => {
    it.effect("upcoming shows the soonest upcoming occurrence, past the most recent past one; never the template", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
        // -50h and -26h are over; +1h (cancelled) is skipped; -1h is running (started, ends in 1 h).
        const series = yield* makeSeries(member, {
          frequency: "daily",
          startsInHours: [-50, -26, -1, 1, 23, 47],
          cancelled: [3]
        })
        const [p1, p2, running, , next, last] = series.occurrences
        const single = yield* makeEvent(member, { startsInHours: 5 })
        const pastSingle = yield* makeEvent(member, { startsInHours: -10 })

        const upcoming = yield* cardsOf({}, visitor.client)
        assert.deepStrictEqual(upcoming.map((c) => c.id), [running!.id, single.id])
        includes(upcoming[0], { is_series: true, series_count: 5, recurrence_frequency: "daily" })
        includes(upcoming[1], { is_series: false, series_count: null, recurrence_frequency: null })
        for (const card of upcoming) assert.notProperty(card, "series_occurrences")

        const past = yield* cardsOf({ when: "past" }, visitor.client)
        assert.deepStrictEqual(past.map((c) => c.id), [pastSingle.id, p2!.id])
        includes(past[1], { is_series: true, series_count: 5, recurrence_frequency: "daily" })

        // Once the running one is over the next one stands for the series, and the past card moves up.
        yield* setTimes(running!, -3, 2)
        assert.deepStrictEqual((yield* cardsOf({}, visitor.client)).map((c) => c.id), [single.id, next!.id])
        assert.deepStrictEqual((yield* cardsOf({ when: "past" }, visitor.client)).map((c) => c.id), [
          running!.id,
          pastSingle.id
        ])
        // A whole series cancelled but its last occurrence: that one is the card.
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE events SET status = 'cancelled' WHERE id IN (${next!.id}, ${p1!.id})`
        )
        const after = yield* cardsOf({}, visitor.client)
        assert.deepStrictEqual(after.map((c) => c.id), [single.id, last!.id])
        includes(after[1], { series_count: 3 })
      }))

    it.effect("the keyset cursor pages many series and single events without repeats or gaps, both ways", () =>
      Effect.gen(function*() {
        const { member, other, visitor } = yield* community()
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
          const up = yield* walk({}, perPage, visitor.client)
          assert.deepStrictEqual(up.ids, expectedUpcoming, `per_page ${perPage}`)
          assert.strictEqual(up.pages, Math.ceil(12 / perPage))
        }
        for (const perPage of [1, 4, 9]) {
          const down = yield* walk({ when: "past" }, perPage, visitor.client)
          assert.deepStrictEqual(down.ids, expectedPast, `past per_page ${perPage}`)
        }
        // Filters apply before collapsing: the organiser filter keeps other's series as one card each.
        const mine = yield* walk({ user_id: other.id }, 2, visitor.client)
        assert.strictEqual(mine.ids.length, 3)
        assert.deepStrictEqual(
          mine.ids,
          expectedUpcoming.filter((id) => mine.ids.includes(id))
        )
      }))

    it.effect("the card is the first occurrence that passes the filters; standalone series do not collapse", () =>
      Effect.gen(function*() {
        const { member, visitor } = yield* community()
        const series = yield* makeSeries(member, { startsInHours: [2, 26, 50], title: "Repair cafe" })
        // An occurrence edited on its own (another title) is still in the series but not found by the search.
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`UPDATE events SET title = 'Lunch' WHERE id = ${series.occurrences[0]!.id}`
        )
        assert.deepStrictEqual((yield* cardsOf({ search: "repair" }, visitor.client)).map((c) => c.id), [
          series.occurrences[1]!.id
        ])
        assert.deepStrictEqual((yield* cardsOf({ search: "lunch" }, visitor.client)).map((c) => c.id), [
          series.occurrences[0]!.id
        ])

        const standalone = yield* createEventSeries(member.client)
        const a = yield* makeEvent(member, { startsInHours: 100 })
        const b = yield* makeEvent(member, { startsInHours: 124 })
        for (const event of [a, b]) {
          yield* member.client.eventSeries.link({ path: { id: event.id }, payload: { series_id: standalone } }).pipe(
            expectOk
          )
        }
        const cards = yield* cardsOf({}, visitor.client)
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
        const { member, visitor } = yield* community()
        const hours = [-48, -24, ...Array.from({ length: 53 }, (_, i) => 1 + i * 24)]
        const series = yield* makeSeries(member, { startsInHours: hours, frequency: "daily", cancelled: [3] })
        const upcoming = series.occurrences.filter((_, i) => i >= 2 && i !== 3).slice(0, 50)
        for (const id of [series.template.id, series.occurrences[0]!.id, series.occurrences[10]!.id]) {
          const event = asJson((yield* detailOf(visitor.client, id)).data) as Card
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
        const template = (yield* detailOf(visitor.client, series.template.id)).data
        assert.isTrue(template.is_recurring_template)

        const single = yield* makeEvent(member)
        const plain = (yield* detailOf(visitor.client, single.id)).data
        includes(plain, { is_series: false, series_count: null, recurrence_frequency: null })
        assert.notProperty(plain, "series_occurrences")

        // A series with nothing ahead: an empty list. A template without a rule: no frequency.
        const over = yield* makeSeries(member, { startsInHours: [-30, -6] })
        yield* Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`DELETE FROM event_recurrence_rules WHERE event_id = ${over.template.id}`
        )
        const overView = (yield* detailOf(visitor.client, over.occurrences[1]!.id)).data
        includes(overView, { is_series: true, series_count: 2, recurrence_frequency: null })
        assert.deepStrictEqual(overView.series_occurrences, [])
      }))
  })
})
