import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { SeriesOccurrence } from "@timebank/domain"
import { clampDayOfMonth } from "@timebank/server"
import { DateTime as EffectDateTime, Effect } from "effect"
import { DateTime } from "luxon"
import { codeOf, dataOf, fieldsOf } from "./fixtures/bodies.js"
import { insertRsvp, makeEvent, makePoll } from "./fixtures/events.js"
import { makeCategory } from "./fixtures/listings.js"
import { signIn } from "./fixtures/members.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { apiClient, rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeAdmin, makeSuperAdmin, makeUser } from "./fixtures/users.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

interface Occurrence {
  id: number
  start_time: string
  end_time: string | null
  occurrence_date: string
}
interface Created {
  id: number
  title: string
  start_time: string
  end_time: string | null
  is_recurring_template: boolean
  parent_event_id: number | null
  occurrence_date: string | null
  poll_ids: Array<number>
  category_id: number | null
  series_occurrences: Array<Occurrence>
}

const EVENTS = "/api/v2/events"
const RECURRING = `${EVENTS}/recurring`
const BERLIN = "Europe/Berlin"
type Headers = Record<string, string>

/** Every request from an address of its own, so that the create and delete limits are never met by accident. */
const call = (method: "GET" | "POST" | "PUT" | "DELETE", path: string, headers: Headers, body?: unknown) =>
  rawRequest(method, path, {
    headers: { ...fromIp(randomIp()), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })

/** A community in Berlin time with an admin and two members, all signed in. */
const community = (overrides: Record<string, unknown> = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant({ timezone: BERLIN, ...overrides })
    const admin = yield* makeAdmin(tenant)
    const member = yield* makeUser(tenant)
    const other = yield* makeUser(tenant)
    return {
      tenant,
      admin,
      member,
      other,
      adminHeaders: yield* signIn(admin),
      memberHeaders: yield* signIn(member),
      otherHeaders: yield* signIn(other),
      anonymous: tenantHeaders(tenant)
    }
  })

/** Next week's Monday at `hour`:00 Berlin time, as an ISO instant. */
const nextMonday = (hour = 10) =>
  DateTime.now().setZone(BERLIN).startOf("week").plus({ weeks: 1 }).set({ hour }).toUTC().toISO()!

const berlin = (iso: string) => DateTime.fromISO(iso, { zone: BERLIN })

const base = (overrides: Record<string, unknown> = {}) => ({
  title: "Repair café",
  description: "Bring what is broken",
  start_time: nextMonday(),
  end_time: DateTime.fromISO(nextMonday()).plus({ hours: 2 }).toUTC().toISO(),
  location: "Town hall",
  ...overrides
})

const rows = <A extends object>(query: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, query).pipe(Effect.orDie)

const seriesRows = (templateId: number) =>
  rows((sql) =>
    sql<
      {
        id: string
        title: string
        start_time: Date
        status: string
        max_attendees: number | null
        location: string | null
      }
    >`
      SELECT id, title, start_time, status, max_attendees, location FROM events
      WHERE parent_event_id = ${templateId} ORDER BY start_time`
  )

const ruleOf = (templateId: number) =>
  Effect.map(
    rows((sql) =>
      sql<
        {
          frequency: string
          interval_value: number
          days_of_week: Array<string> | null
          day_of_month: number | null
          rrule: string
          ends_type: string
          ends_after_count: number | null
          ends_on_date: string | null
          timezone: string
        }
      >`
        SELECT frequency, interval_value, days_of_week, day_of_month, rrule, ends_type, ends_after_count,
               to_char(ends_on_date, 'YYYY-MM-DD') AS ends_on_date, timezone
        FROM event_recurrence_rules WHERE event_id = ${templateId}`
    ),
    (r) => r[0]
  )

const outboxOf = (tenantId: number, type: string) =>
  Effect.map(
    rows((sql) =>
      sql<{ payload: Record<string, unknown> }>`
        SELECT payload FROM outbox_events WHERE tenant_id = ${tenantId} AND event_type = ${type} ORDER BY id`
    ),
    (r) => r.map((x) => x.payload)
  )

const eventsOf = (userId: number) =>
  Effect.map(
    rows((sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM events WHERE user_id = ${userId}`),
    (r) => r[0]!.n
  )

const createSeries = (headers: Headers, body: Record<string, unknown>) =>
  Effect.gen(function*() {
    const res = yield* call("POST", RECURRING, headers, body)
    assert.strictEqual(res.status, 201, res.text)
    return dataOf<Created>(res.body)
  })

/** Moves an event's start (and end) by `hours`, straight in the database (to make an occurrence past). */
const shiftTo = (id: number, start: Date) =>
  rows((sql) =>
    sql`UPDATE events SET start_time = ${start}, end_time = ${new Date(start.getTime() + 3_600_000)} WHERE id = ${id}`
  )

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("recurring events", (it) => {
  describe("POST /events/recurring", () => {
    it.effect("weekly on two days in a Berlin community: template, rule, occurrences at 10:00 local across DST; outbox", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, tenant } = yield* community()
        const category = yield* makeCategory(tenant, { name: "Repairs", type: "event" })
        const poll = yield* makePoll(member)
        const created = yield* createSeries(memberHeaders, {
          ...base(),
          category_name: "repairs",
          poll_ids: [poll.id],
          recurrence_frequency: "weekly",
          recurrence_days: ["Monday", "wed"],
          recurrence_interval: 2
        })
        assert.isTrue(created.is_recurring_template)
        assert.isNull(created.parent_event_id)
        assert.strictEqual(created.category_id, category.id)
        assert.deepStrictEqual(created.poll_ids, [poll.id])
        // No count: the 52 cap, every second week over (almost) a year.
        assert.strictEqual(created.series_occurrences.length, 52)
        // The template holds the first date.
        assert.strictEqual(created.start_time, created.series_occurrences[0]!.start_time)
        const locals = created.series_occurrences.map((o) => berlin(o.start_time))
        assert.isTrue(locals.every((t) => t.hour === 10 && t.minute === 0), "10:00 Berlin time")
        assert.isTrue(locals.every((t) => t.weekday === 1 || t.weekday === 3), "Mondays and Wednesdays")
        assert.strictEqual(locals[2]!.diff(locals[0]!, "days").days, 14, "every second week")
        // A year of dates crosses both DST changes: the UTC hour is not always the same.
        assert.strictEqual(new Set(created.series_occurrences.map((o) => new Date(o.start_time).getUTCHours())).size, 2)
        for (const o of created.series_occurrences) {
          assert.strictEqual(o.occurrence_date, berlin(o.start_time).toISODate())
          assert.strictEqual(new Date(o.end_time!).getTime() - new Date(o.start_time).getTime(), 2 * 3_600_000)
        }
        const stored = yield* seriesRows(created.id)
        assert.deepStrictEqual(stored.map((r) => Number(r.id)), created.series_occurrences.map((o) => o.id))
        assert.isTrue(stored.every((r) => r.title === "Repair café" && r.location === "Town hall"))
        const rule = yield* ruleOf(created.id)
        assert.deepInclude(rule, {
          frequency: "weekly",
          interval_value: 2,
          day_of_month: null,
          rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=MO;COUNT=52",
          ends_type: "after_count",
          ends_after_count: 52,
          ends_on_date: null,
          timezone: BERLIN
        })
        assert.deepStrictEqual(rule!.days_of_week, ["monday", "wednesday"])
        const polls = yield* rows((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM event_polls WHERE poll_id = ${poll.id}`
        )
        assert.strictEqual(polls[0]!.n, 53)
        const [payload] = yield* outboxOf(tenant.id, "CommunityEventCreated")
        assert.deepInclude(payload, {
          event_id: created.id,
          user_id: member.id,
          occurrence_count: 52,
          poll_ids: [poll.id]
        })
        // The template and its occurrences are ordinary events for the detail route.
        const detail = yield* call("GET", `${EVENTS}/${created.series_occurrences[1]!.id}`, memberHeaders)
        assert.strictEqual(detail.status, 200, detail.text)
        includes(dataOf(detail.body), {
          parent_event_id: created.id,
          occurrence_date: created.series_occurrences[1]!.occurrence_date
        })
      }))

    it.effect("the create answer and the detail name the dates alike: `series_occurrences`, same items", () =>
      Effect.gen(function*() {
        const { memberHeaders } = yield* community()
        const res = yield* call("POST", RECURRING, memberHeaders, {
          ...base(),
          recurrence_frequency: "weekly",
          recurrence_ends_after_count: 3
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<Created & Record<string, unknown>>(res.body)
        assert.notProperty(created, "occurrences")
        assert.lengthOf(created.series_occurrences, 3)
        for (const id of [created.id, created.series_occurrences[1]!.id]) {
          const detail = yield* call("GET", `${EVENTS}/${id}`, memberHeaders)
          assert.strictEqual(detail.status, 200, detail.text)
          // All three dates are upcoming and active, so the detail lists exactly what the create made.
          assert.deepStrictEqual(
            dataOf<{ series_occurrences: Array<Occurrence> }>(detail.body).series_occurrences,
            created.series_occurrences
          )
        }
        for (const o of created.series_occurrences) {
          assert.sameMembers(Object.keys(o), ["id", "start_time", "end_time", "occurrence_date"])
        }
        // The typed client decodes the create answer with the same item class as the detail.
        const client = yield* apiClient({ ...fromIp(randomIp()), ...memberHeaders })
        const start = EffectDateTime.unsafeMake(nextMonday())
        const typed = yield* client.recurringEvents.create({
          payload: {
            title: "Typed",
            description: "Through the client",
            start_time: start,
            end_time: EffectDateTime.add(start, { hours: 1 }),
            recurrence_frequency: "daily",
            recurrence_ends_after_count: 2
          }
        })
        assert.lengthOf(typed.data.series_occurrences, 2)
        assert.instanceOf(typed.data.series_occurrences[0], SeriesOccurrence)
      }))

    it.effect("daily until a date (inclusive), interval 2", () =>
      Effect.gen(function*() {
        const { memberHeaders } = yield* community()
        const first = berlin(nextMonday())
        const until = first.plus({ days: 8 }).toISODate()!
        const created = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "daily",
          recurrence_interval: 2,
          recurrence_ends_type: "on_date",
          recurrence_ends_on_date: until,
          recurrence_ends_after_count: 2
        })
        assert.deepStrictEqual(
          created.series_occurrences.map((o) => o.occurrence_date),
          [0, 2, 4, 6, 8].map((d) => first.plus({ days: d }).toISODate())
        )
        assert.deepInclude(yield* ruleOf(created.id), {
          frequency: "daily",
          interval_value: 2,
          ends_type: "on_date",
          ends_on_date: until,
          ends_after_count: null,
          rrule: "FREQ=DAILY;INTERVAL=2;COUNT=5"
        })
      }))

    it.effect("monthly on the 31st clamps to each month's last day; 52 cap and one-year cap", () =>
      Effect.gen(function*() {
        const { memberHeaders } = yield* community()
        const created = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "monthly",
          recurrence_day_of_month: 31,
          recurrence_ends_after_count: 100
        })
        // One year from now allows 11 or 12 monthly dates; every one is the month's last day at 10:00 Berlin.
        assert.include([11, 12], created.series_occurrences.length)
        for (const o of created.series_occurrences) {
          const t = berlin(o.start_time)
          assert.strictEqual(t.day, clampDayOfMonth(t.year, t.month, 31))
          assert.strictEqual(t.hour, 10)
        }
        assert.isAtMost(
          new Date(created.series_occurrences.at(-1)!.start_time).getTime(),
          Date.now() + 366 * 86_400_000
        )
        const rule = yield* ruleOf(created.id)
        assert.deepInclude(rule, {
          frequency: "monthly",
          day_of_month: 31,
          ends_after_count: created.series_occurrences.length
        })
        const daily = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "daily",
          recurrence_ends_after_count: 100
        })
        assert.strictEqual(daily.series_occurrences.length, 52)
        assert.strictEqual((yield* seriesRows(daily.id)).length, 52)
      }))

    it.effect("yearly and custom RRULE", () =>
      Effect.gen(function*() {
        const { memberHeaders } = yield* community()
        const yearly = yield* createSeries(memberHeaders, { ...base(), recurrence_frequency: "yearly" })
        assert.strictEqual(yearly.series_occurrences.length, 1)
        assert.strictEqual((yield* ruleOf(yearly.id))!.frequency, "yearly")
        const custom = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "custom",
          rrule: "RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4"
        })
        assert.strictEqual(custom.series_occurrences.length, 4)
        assert.isTrue(custom.series_occurrences.every((o) => [1, 3].includes(berlin(o.start_time).weekday)))
        assert.deepInclude(yield* ruleOf(custom.id), { frequency: "custom", rrule: "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=4" })
      }))

    it.effect("422: every bad field reported together, nothing written", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const expectFields = (body: Record<string, unknown>, fields: Array<string>) =>
          Effect.gen(function*() {
            const res = yield* call("POST", RECURRING, memberHeaders, body)
            assert.strictEqual(res.status, 422, res.text)
            assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
            assert.sameMembers(fieldsOf(res.body), fields, res.text)
          })
        yield* expectFields({ ...base(), recurrence_frequency: "hourly" }, ["recurrence_frequency"])
        yield* expectFields({ ...base() }, ["recurrence_frequency"])
        yield* expectFields(
          { ...base(), recurrence_frequency: "daily", recurrence_interval: 0, recurrence_ends_type: "never" },
          ["recurrence_interval", "recurrence_ends_type"]
        )
        yield* expectFields({ ...base(), recurrence_frequency: "weekly", recurrence_days: ["monday", "funday"] }, [
          "recurrence_days"
        ])
        yield* expectFields({ ...base(), recurrence_frequency: "custom" }, ["rrule"])
        yield* expectFields({ ...base(), recurrence_frequency: "custom", rrule: "FREQ=SOMETIMES" }, ["rrule"])
        yield* expectFields({ ...base(), recurrence_frequency: "daily", recurrence_ends_type: "on_date" }, [
          "recurrence_ends_on_date"
        ])
        yield* expectFields({
          ...base(),
          recurrence_frequency: "daily",
          recurrence_ends_type: "on_date",
          recurrence_ends_on_date: berlin(nextMonday()).minus({ days: 1 }).toISODate()
        }, ["recurrence_ends_on_date"])
        yield* expectFields({ ...base(), recurrence_frequency: "daily", recurrence_ends_on_date: "2025-02-30" }, [
          "recurrence_ends_on_date"
        ])
        yield* expectFields({ ...base(), recurrence_frequency: "monthly", recurrence_day_of_month: 32 }, [
          "recurrence_day_of_month"
        ])
        // Rule, times and category problems come back in one answer.
        yield* expectFields({
          ...base({ start_time: "2020-01-01T10:00:00Z", end_time: "2020-01-01T09:00:00Z" }),
          category_id: 999_999_999,
          recurrence_frequency: "weekly",
          recurrence_days: ["someday"]
        }, ["start_time", "end_time", "category_id", "recurrence_days"])
        assert.strictEqual(yield* eventsOf(member.id), 0)
      }))

    it.effect("403 for another member's poll and for a visiting super-admin; 401 without a token; FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { anonymous, member, memberHeaders, other, tenant } = yield* community()
        const foreign = yield* makePoll(other)
        const polls = yield* call("POST", RECURRING, memberHeaders, {
          ...base(),
          recurrence_frequency: "daily",
          poll_ids: [foreign.id]
        })
        assert.strictEqual(polls.status, 403, polls.text)
        assert.strictEqual(codeOf(polls.body), "FORBIDDEN")
        const superHeaders = yield* authHeaders(yield* makeSuperAdmin(), tenant)
        const visiting = yield* call("POST", RECURRING, superHeaders, { ...base(), recurrence_frequency: "daily" })
        assert.strictEqual(visiting.status, 403, visiting.text)
        const anon = yield* call("POST", RECURRING, anonymous, { ...base(), recurrence_frequency: "daily" })
        assert.strictEqual(anon.status, 401)
        assert.strictEqual(yield* eventsOf(member.id), 0)
        const off = yield* community({ features: { events: false } })
        const disabled = yield* call("POST", RECURRING, off.memberHeaders, { ...base(), recurrence_frequency: "daily" })
        assert.strictEqual(disabled.status, 403)
        assert.strictEqual(codeOf(disabled.body), "FEATURE_DISABLED")
      }))
  })

  describe("PUT /events/{id}/recurring", () => {
    const weekly = (headers: Headers, count = 4) =>
      createSeries(headers, {
        ...base(),
        recurrence_frequency: "weekly",
        recurrence_ends_after_count: count,
        max_attendees: 10
      })

    it.effect("scope single on an occurrence: detached, only it changes (times included)", () =>
      Effect.gen(function*() {
        const { memberHeaders, tenant } = yield* community()
        const series = yield* weekly(memberHeaders)
        const target = series.series_occurrences[1]!
        const moved = berlin(target.start_time).plus({ hours: 3 })
        const res = yield* call("PUT", `${EVENTS}/${target.id}/recurring`, memberHeaders, {
          scope: "single",
          title: "Special edition",
          start_time: moved.toUTC().toISO(),
          end_time: moved.plus({ hours: 1 }).toUTC().toISO()
        })
        assert.strictEqual(res.status, 200, res.text)
        const view = dataOf<Created>(res.body)
        assert.deepInclude(view, { id: target.id, title: "Special edition", parent_event_id: null })
        assert.strictEqual(new Date(view.start_time).getTime(), moved.toMillis())
        const rest = yield* seriesRows(series.id)
        assert.deepStrictEqual(rest.map((r) => Number(r.id)), [0, 2, 3].map((i) => series.series_occurrences[i]!.id))
        assert.isTrue(rest.every((r) => r.title === "Repair café"))
        const updates = yield* outboxOf(tenant.id, "CommunityEventUpdated")
        assert.deepInclude(updates.at(-1), {
          event_id: target.id,
          scope: "single",
          event_ids: [target.id],
          detached_from: series.id
        })
        // Detached even when nothing else changes.
        const plain = series.series_occurrences[2]!
        const detachOnly = yield* call("PUT", `${EVENTS}/${plain.id}/recurring`, memberHeaders, { scope: "single" })
        assert.strictEqual(detachOnly.status, 200, detachOnly.text)
        assert.isNull(dataOf<Created>(detachOnly.body).parent_event_id)
      }))

    it.effect("scope all (from an occurrence): template and future, active occurrences change; times never", () =>
      Effect.gen(function*() {
        const { member, memberHeaders, other, tenant } = yield* community()
        const series = yield* weekly(memberHeaders, 5)
        const [past, cancelled, addressed] = [
          series.series_occurrences[0]!,
          series.series_occurrences[1]!,
          series.series_occurrences[2]!
        ]
        yield* shiftTo(past.id, new Date(Date.now() - 3 * 3_600_000))
        yield* rows((sql) => sql`UPDATE events SET status = 'cancelled' WHERE id = ${cancelled.id}`)
        yield* insertRsvp(addressed.id, other, "going")
        const res = yield* call("PUT", `${EVENTS}/${addressed.id}/recurring`, memberHeaders, {
          scope: "all",
          title: "Repair café (new room)",
          location: "Library",
          max_attendees: 20
        })
        assert.strictEqual(res.status, 200, res.text)
        const view = dataOf<Created & { location: string; max_attendees: number }>(res.body)
        assert.deepInclude(view, {
          id: addressed.id,
          title: "Repair café (new room)",
          location: "Library",
          max_attendees: 20
        })
        assert.strictEqual(view.start_time, addressed.start_time)
        const after = yield* seriesRows(series.id)
        const byId = new Map(after.map((r) => [Number(r.id), r]))
        assert.strictEqual(byId.get(past.id)!.title, "Repair café")
        assert.strictEqual(byId.get(cancelled.id)!.title, "Repair café")
        for (const o of series.series_occurrences.slice(2)) {
          assert.deepInclude(byId.get(o.id), {
            title: "Repair café (new room)",
            location: "Library",
            max_attendees: 20
          })
          assert.strictEqual(byId.get(o.id)!.start_time.toISOString(), new Date(o.start_time).toISOString())
        }
        const template = yield* call("GET", `${EVENTS}/${series.id}`, memberHeaders)
        includes(dataOf(template.body), { title: "Repair café (new room)", start_time: series.start_time })
        const [payload] = (yield* outboxOf(tenant.id, "CommunityEventUpdated")).slice(-1)
        assert.deepInclude(payload, { event_id: series.id, user_id: member.id, scope: "all", updated_by: member.id })
        assert.sameMembers(payload!["event_ids"] as Array<number>, [
          series.id,
          ...series.series_occurrences.slice(2).map((o) => o.id)
        ])
        assert.deepStrictEqual(payload!["changed"], ["title", "location"])
      }))

    it.effect("scope all from the template; start_time/end_time with scope all → 422", () =>
      Effect.gen(function*() {
        const { adminHeaders, memberHeaders } = yield* community()
        const series = yield* weekly(memberHeaders, 3)
        const refused = yield* call("PUT", `${EVENTS}/${series.id}/recurring`, memberHeaders, {
          scope: "all",
          title: "x",
          start_time: nextMonday(12),
          end_time: nextMonday(13)
        })
        assert.strictEqual(refused.status, 422, refused.text)
        assert.sameMembers(fieldsOf(refused.body), ["start_time", "end_time"])
        // A community admin may edit the series too.
        const res = yield* call("PUT", `${EVENTS}/${series.id}/recurring`, adminHeaders, {
          scope: "all",
          description: "New text"
        })
        assert.strictEqual(res.status, 200, res.text)
        assert.isTrue((yield* seriesRows(series.id)).length === 3)
        const descriptions = yield* rows((sql) =>
          sql<
            { description: string }
          >`SELECT description FROM events WHERE id = ${series.id} OR parent_event_id = ${series.id}`
        )
        assert.isTrue(descriptions.every((r) => r.description === "New text"))
      }))

    it.effect("422 scope: single on a template, any scope on an event outside a series; 409 on a cancelled series", () =>
      Effect.gen(function*() {
        const { member, memberHeaders } = yield* community()
        const series = yield* weekly(memberHeaders, 3)
        const single = yield* call("PUT", `${EVENTS}/${series.id}/recurring`, memberHeaders, {
          scope: "single",
          title: "x"
        })
        assert.strictEqual(single.status, 422, single.text)
        assert.deepStrictEqual(fieldsOf(single.body), ["scope"])
        const plain = yield* makeEvent(member)
        const notSeries = yield* call("PUT", `${EVENTS}/${plain.id}/recurring`, memberHeaders, {
          scope: "all",
          title: "x"
        })
        assert.strictEqual(notSeries.status, 422, notSeries.text)
        assert.deepStrictEqual(fieldsOf(notSeries.body), ["scope"])
        const noScope = yield* call("PUT", `${EVENTS}/${series.id}/recurring`, memberHeaders, { title: "x" })
        assert.strictEqual(noScope.status, 422)
        assert.deepStrictEqual(fieldsOf(noScope.body), ["scope"])
        const cancel = yield* call("POST", `${EVENTS}/${series.id}/cancel`, memberHeaders, {})
        assert.strictEqual(cancel.status, 200, cancel.text)
        const closed = yield* call("PUT", `${EVENTS}/${series.id}/recurring`, memberHeaders, {
          scope: "all",
          title: "x"
        })
        assert.strictEqual(closed.status, 409, closed.text)
        assert.strictEqual(codeOf(closed.body), "EVENT_CANCELLED")
      }))

    it.effect("403 for another member, 404 across tenants and for unknown ids", () =>
      Effect.gen(function*() {
        const { memberHeaders, otherHeaders } = yield* community()
        const series = yield* weekly(memberHeaders, 2)
        const forbidden = yield* call("PUT", `${EVENTS}/${series.series_occurrences[0]!.id}/recurring`, otherHeaders, {
          scope: "all",
          title: "x"
        })
        assert.strictEqual(forbidden.status, 403, forbidden.text)
        assert.strictEqual(codeOf(forbidden.body), "FORBIDDEN")
        const elsewhere = yield* community()
        for (const id of [series.id, series.series_occurrences[0]!.id]) {
          const res = yield* call("PUT", `${EVENTS}/${id}/recurring`, elsewhere.adminHeaders, {
            scope: "all",
            title: "x"
          })
          assert.strictEqual(res.status, 404, res.text)
          assert.strictEqual(codeOf(res.body), "NOT_FOUND")
        }
        const unknown = yield* call("PUT", `${EVENTS}/999999999/recurring`, memberHeaders, { scope: "all" })
        assert.strictEqual(unknown.status, 404)
        assert.isTrue((yield* seriesRows(series.id)).every((r) => r.title === "Repair café"))
      }))
  })

  describe("cascades over real series", () => {
    it.effect("cancelling the template cancels its future occurrences, not the past ones", () =>
      Effect.gen(function*() {
        const { memberHeaders, other, tenant } = yield* community()
        const series = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "daily",
          recurrence_ends_after_count: 4
        })
        const past = series.series_occurrences[0]!
        yield* shiftTo(past.id, new Date(Date.now() - 5 * 3_600_000))
        yield* insertRsvp(series.series_occurrences[2]!.id, other, "going")
        const res = yield* call("POST", `${EVENTS}/${series.id}/cancel`, memberHeaders, { reason: "Closed" })
        assert.strictEqual(res.status, 200, res.text)
        const after = yield* seriesRows(series.id)
        assert.deepStrictEqual(after.map((r) => r.status), ["active", "cancelled", "cancelled", "cancelled"])
        const [payload] = yield* outboxOf(tenant.id, "EventCancelled")
        assert.sameMembers(
          payload!["cancelled_occurrence_ids"] as Array<number>,
          series.series_occurrences.slice(1).map((o) => o.id)
        )
        assert.deepStrictEqual(payload!["recipients"], [other.id])
      }))

    it.effect("deleting the template deletes the rule and future occurrences and detaches past ones", () =>
      Effect.gen(function*() {
        const { adminHeaders, memberHeaders } = yield* community()
        const series = yield* createSeries(memberHeaders, {
          ...base(),
          recurrence_frequency: "daily",
          recurrence_ends_after_count: 4
        })
        const past = series.series_occurrences[0]!
        yield* shiftTo(past.id, new Date(Date.now() - 5 * 3_600_000))
        const res = yield* call("DELETE", `${EVENTS}/${series.id}`, adminHeaders)
        assert.strictEqual(res.status, 200, res.text)
        assert.isUndefined(yield* ruleOf(series.id))
        const left = yield* rows((sql) =>
          sql<{ id: string; parent_event_id: string | null }>`
            SELECT id, parent_event_id FROM events WHERE id IN ${sql.in(series.series_occurrences.map((o) => o.id))}`
        )
        assert.deepStrictEqual(left.map((r) => [Number(r.id), r.parent_event_id]), [[past.id, null]])
      }))
  })
})
