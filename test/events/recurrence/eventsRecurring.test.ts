import { assert, describe, layer } from "@effect/vitest"
import { type CreateRecurringEvent, SeriesOccurrence } from "@timebank/domain"
import { clampDayOfMonth } from "@timebank/server"
import { DateTime as EffectDateTime, Effect } from "effect"
import { codeOf, dataOf, fieldsOf } from "../../fixtures/bodies.js"
import { expectError, expectOk, ownAddressClient } from "../../fixtures/client.js"
import { asJson, makePoll, outboxOf, rawCall } from "../../fixtures/events.js"
import { makeCategory } from "../../fixtures/listings.js"
import { TestApp } from "../../fixtures/TestApp.js"
import { authHeaders, makeSuperAdmin } from "../../fixtures/users.js"
import {
  base,
  BERLIN,
  berlin,
  berlinCommunity,
  type Created,
  createSeries,
  eventsOf,
  nextMonday,
  type Occurrence,
  rawBase,
  rows,
  ruleOf,
  seriesRows
} from "./recurringSeries.js"

const includes = (actual: unknown, expected: Record<string, unknown>) =>
  assert.deepInclude<Record<string, unknown>>(actual as Record<string, unknown>, expected)

const RECURRING = "/api/v2/events/recurring"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("recurring events: create", (it) => {
  describe("POST /events/recurring", () => {
    it.effect("weekly on two days in a Berlin community: template, rule, occurrences at 10:00 local across DST; outbox", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* berlinCommunity()
        const category = yield* makeCategory(tenant, { name: "Repairs", type: "event" })
        const poll = yield* makePoll(member)
        const created = yield* createSeries(yield* ownAddressClient(member), {
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
        const [payload] = yield* outboxOf(tenant, "CommunityEventCreated")
        assert.deepInclude(payload, {
          event_id: created.id,
          user_id: member.id,
          occurrence_count: 52,
          poll_ids: [poll.id]
        })
        // The template and its occurrences are ordinary events for the detail route.
        const detail = yield* member.client.events.get({ path: { id: created.series_occurrences[1]!.id } }).pipe(
          expectOk
        )
        includes(asJson(detail.data), {
          parent_event_id: created.id,
          occurrence_date: created.series_occurrences[1]!.occurrence_date
        })
      }))

    it.effect("the create answer and the detail name the dates alike: `series_occurrences`, same items", () =>
      Effect.gen(function*() {
        const { member } = yield* berlinCommunity()
        // Raw: the keys on the wire are the point.
        const res = yield* rawCall("POST", RECURRING, member.headers, {
          ...rawBase(),
          recurrence_frequency: "weekly",
          recurrence_ends_after_count: 3
        })
        assert.strictEqual(res.status, 201, res.text)
        const created = dataOf<Created & Record<string, unknown>>(res.body)
        assert.notProperty(created, "occurrences")
        assert.lengthOf(created.series_occurrences, 3)
        for (const id of [created.id, created.series_occurrences[1]!.id]) {
          const detail = yield* member.client.events.get({ path: { id } }).pipe(expectOk)
          // All three dates are upcoming and active, so the detail lists exactly what the create made.
          assert.deepStrictEqual(
            (asJson(detail.data) as { series_occurrences?: Array<Occurrence> }).series_occurrences,
            created.series_occurrences
          )
        }
        for (const o of created.series_occurrences) {
          assert.sameMembers(Object.keys(o), ["id", "start_time", "end_time", "occurrence_date"])
        }
        // The typed client decodes the create answer with the same item class as the detail.
        const client = yield* ownAddressClient(member)
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
        const { member } = yield* berlinCommunity()
        const first = berlin(nextMonday())
        const until = first.plus({ days: 8 }).toISODate()!
        const created = yield* createSeries(yield* ownAddressClient(member), {
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
        const { member } = yield* berlinCommunity()
        const client = yield* ownAddressClient(member)
        const created = yield* createSeries(client, {
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
        const daily = yield* createSeries(client, {
          ...base(),
          recurrence_frequency: "daily",
          recurrence_ends_after_count: 100
        })
        assert.strictEqual(daily.series_occurrences.length, 52)
        assert.strictEqual((yield* seriesRows(daily.id)).length, 52)
      }))

    it.effect("yearly and custom RRULE", () =>
      Effect.gen(function*() {
        const { member } = yield* berlinCommunity()
        const client = yield* ownAddressClient(member)
        const yearly = yield* createSeries(client, { ...base(), recurrence_frequency: "yearly" })
        assert.strictEqual(yearly.series_occurrences.length, 1)
        assert.strictEqual((yield* ruleOf(yearly.id))!.frequency, "yearly")
        const custom = yield* createSeries(client, {
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
        const { member } = yield* berlinCommunity()
        const client = yield* ownAddressClient(member)
        const expectFields = (payload: CreateRecurringEvent, fields: Array<string>) =>
          Effect.gen(function*() {
            const failure = yield* client.recurringEvents.create({ payload }).pipe(expectError(422, "VALIDATION_ERROR"))
            assert.sameMembers([...failure.fields], fields, failure.message)
          })
        // Raw: bodies the client's schemas would refuse to send.
        const expectRawFields = (body: Record<string, unknown>, fields: Array<string>) =>
          Effect.gen(function*() {
            const res = yield* rawCall("POST", RECURRING, member.headers, body)
            assert.strictEqual(res.status, 422, res.text)
            assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
            assert.sameMembers(fieldsOf(res.body), fields, res.text)
          })
        yield* expectRawFields({ ...rawBase(), recurrence_frequency: "hourly" }, ["recurrence_frequency"])
        yield* expectRawFields({ ...rawBase() }, ["recurrence_frequency"])
        yield* expectRawFields(
          { ...rawBase(), recurrence_frequency: "daily", recurrence_interval: 0, recurrence_ends_type: "never" },
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
          recurrence_ends_on_date: berlin(nextMonday()).minus({ days: 1 }).toISODate()!
        }, ["recurrence_ends_on_date"])
        yield* expectRawFields({ ...rawBase(), recurrence_frequency: "daily", recurrence_ends_on_date: "2025-02-30" }, [
          "recurrence_ends_on_date"
        ])
        yield* expectRawFields({ ...rawBase(), recurrence_frequency: "monthly", recurrence_day_of_month: 32 }, [
          "recurrence_day_of_month"
        ])
        // Rule, times and category problems come back in one answer.
        yield* expectFields({
          ...base(),
          start_time: EffectDateTime.unsafeMake("2020-01-01T10:00:00Z"),
          end_time: EffectDateTime.unsafeMake("2020-01-01T09:00:00Z"),
          category_id: 999_999_999,
          recurrence_frequency: "weekly",
          recurrence_days: ["someday"]
        }, ["start_time", "end_time", "category_id", "recurrence_days"])
        assert.strictEqual(yield* eventsOf(member.id), 0)
      }))

    it.effect("403 for another member's poll and for a visiting super-admin; 401 without a token; FEATURE_DISABLED", () =>
      Effect.gen(function*() {
        const { member, other, tenant, visitor } = yield* berlinCommunity()
        const foreign = yield* makePoll(other)
        const daily = { ...base(), recurrence_frequency: "daily" } as const
        yield* (yield* ownAddressClient(member)).recurringEvents.create({
          payload: { ...daily, poll_ids: [foreign.id] }
        }).pipe(expectError(403, "FORBIDDEN"))
        const visiting = yield* ownAddressClient({ headers: yield* authHeaders(yield* makeSuperAdmin(), tenant) })
        yield* visiting.recurringEvents.create({ payload: daily }).pipe(expectError(403, "FORBIDDEN"))
        yield* visitor.client.recurringEvents.create({ payload: daily }).pipe(expectError(401, "AUTH_REQUIRED"))
        assert.strictEqual(yield* eventsOf(member.id), 0)
        const off = yield* berlinCommunity({ features: { events: false } })
        yield* off.member.client.recurringEvents.create({ payload: daily }).pipe(
          expectError(403, "FEATURE_DISABLED")
        )
      }))
  })
})
