import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import type { Tenant } from "@timebank/domain"
import { autoWindow, type DueFacts, dueOutcome, ReminderDelivery } from "@timebank/server"
import { Effect, Schedule } from "effect"
import { expectOk } from "../../fixtures/client.js"
import { community } from "../../fixtures/community.js"
import { insertRsvp, makeEvent, type TestEvent } from "../../fixtures/events.js"
import { twoServers } from "../../fixtures/servers.js"
import { TestApp } from "../../fixtures/TestApp.js"
import type { TestUser } from "../../fixtures/users.js"

const HOUR = 3_600_000
const MINUTE = 60_000

/** One tick of reminder delivery at a chosen time, with this process's database. */
const deliverDue = (now: Date) =>
  Effect.flatMap(ReminderDelivery, (delivery) => delivery.deliverDue(now)).pipe(
    Effect.provide(ReminderDelivery.Default)
  )

const sqlRows = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

interface DueMessage {
  readonly event_id: number
  readonly user_id: number
  readonly kind: string
  readonly channel: string
  readonly offset_minutes: number
  readonly reminder_id: number | null
  readonly delivery_id: number
  readonly event: { readonly id: number; readonly title: string; readonly start_time: string }
}

const messagesOf = (tenant: Tenant) =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ payload: DueMessage }>`
        SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = 'EventReminderDue'
        ORDER BY id`
    ),
    (rows) => rows.map((r) => r.payload)
  )

const deliveriesOf = (event: TestEvent) =>
  sqlRows((sql) =>
    sql<{ user_id: string; kind: string; status: string; failure_reason: string | null; reminder_id: string | null }>`
      SELECT user_id, kind, status, failure_reason, reminder_id FROM event_reminder_deliveries
      WHERE event_id = ${event.id} ORDER BY kind, user_id`
  )

const startOf = (event: TestEvent) =>
  Effect.map(
    sqlRows((sql) => sql<{ start_time: Date }>`SELECT start_time FROM events WHERE id = ${event.id}`),
    (rows) => rows[0]!.start_time
  )

/** A pending user reminder, written as `PUT /reminders` writes it. */
const addReminder = (event: TestEvent, user: TestUser, offsetMinutes: number, channel = "platform") =>
  Effect.map(
    sqlRows((sql) =>
      sql<{ id: string }>`
        INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, scheduled_for)
        SELECT tenant_id, id, ${user.id}, ${offsetMinutes}, ${channel},
               start_time - make_interval(mins => ${offsetMinutes})
        FROM events WHERE id = ${event.id}
        RETURNING id`
    ),
    (rows) => Number(rows[0]!.id)
  )

const reminderStatus = (id: number) =>
  Effect.map(
    sqlRows((sql) => sql<{ status: string }>`SELECT status FROM event_reminders WHERE id = ${id}`),
    (rows) => rows[0]?.status
  )

/** The shared community with `members` more signed-in members; `member` organises. */
const withMembers = (members = 3) =>
  Effect.map(community({ members, signIn: "token" }), (c) => ({ ...c, organiser: c.member }))

describe("reminder delivery rules (pure)", () => {
  const now = new Date("2030-03-01T10:00:00Z")
  const facts: DueFacts = {
    kind: "user",
    reminderStatus: "pending",
    rsvp: "going",
    eventStatus: "active",
    startTime: new Date(now.getTime() + HOUR),
    eventsEnabled: true
  }
  it.effect("a pending reminder of an attendee to an event still to come is sent", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(dueOutcome(facts, now), { _tag: "send" })
      assert.deepStrictEqual(dueOutcome({ ...facts, rsvp: "interested", kind: "auto_1h", reminderStatus: null }, now), {
        _tag: "send"
      })
    }))
  it.effect("started, cancelled, or switched off: failed with the reason", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(dueOutcome({ ...facts, startTime: now }, now), {
        _tag: "fail",
        reason: "the event has already started"
      })
      assert.deepStrictEqual(dueOutcome({ ...facts, eventStatus: "cancelled" }, now), {
        _tag: "fail",
        reason: "the event was cancelled"
      })
      assert.strictEqual(dueOutcome({ ...facts, eventsEnabled: false }, now)._tag, "fail")
    }))
  it.effect("no longer attending: a user reminder is cancelled, an automatic one dropped; a changed reminder dropped", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(dueOutcome({ ...facts, rsvp: "not_going" }, now), { _tag: "cancel" })
      assert.deepStrictEqual(dueOutcome({ ...facts, rsvp: null }, now), { _tag: "cancel" })
      assert.deepStrictEqual(dueOutcome({ ...facts, kind: "auto_24h", reminderStatus: null, rsvp: "declined" }, now), {
        _tag: "drop"
      })
      assert.deepStrictEqual(dueOutcome({ ...facts, reminderStatus: "cancelled" }, now), { _tag: "drop" })
    }))
  it.effect("the automatic windows: 23h30–24h30 and 30–90 minutes ahead", () =>
    Effect.sync(() => {
      assert.deepStrictEqual(autoWindow("auto_24h", now), {
        from: new Date(now.getTime() + 23.5 * HOUR),
        to: new Date(now.getTime() + 24.5 * HOUR)
      })
      assert.deepStrictEqual(autoWindow("auto_1h", now), {
        from: new Date(now.getTime() + 30 * MINUTE),
        to: new Date(now.getTime() + 90 * MINUTE)
      })
    }))
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "reminder delivery with a controllable clock",
  (it) => {
    it.effect("a user reminder is delivered once, at its time, to the outbox with the event", () =>
      Effect.gen(function*() {
        const { members, organiser, tenant } = yield* withMembers()
        const me = members[0]!
        const event = yield* makeEvent(organiser, { startsInHours: 72 })
        yield* insertRsvp(event.id, me, "going")
        const put = yield* me.client.eventReminders.set({
          path: { id: event.id },
          payload: { reminders: [{ offset_minutes: 1440, channel: "email" }] }
        }).pipe(expectOk)
        const reminderId = put.data[0]!.id
        const start = yield* startOf(event)
        const dueAt = new Date(start.getTime() - 1440 * MINUTE)

        // 40 minutes early (the event not yet in the 24 h window either): nothing.
        yield* deliverDue(new Date(dueAt.getTime() - 40 * MINUTE))
        assert.deepStrictEqual(yield* messagesOf(tenant), [])
        assert.strictEqual(yield* reminderStatus(reminderId), "pending")

        // At its time (the automatic 24 h one is due then too, for everyone going).
        const report = yield* deliverDue(dueAt)
        assert.isAtLeast(report.sent, 2)
        const messages = yield* messagesOf(tenant)
        assert.deepStrictEqual(messages.map((m) => [m.kind, m.user_id, m.channel, m.offset_minutes, m.reminder_id]), [
          ["user", me.id, "email", 1440, reminderId],
          ["auto_24h", me.id, "both", 1440, null]
        ])
        assert.deepStrictEqual(
          [messages[0]!.event.id, messages[0]!.event.title, messages[0]!.event.start_time],
          [event.id, event.title, start.toISOString()]
        )
        assert.strictEqual(yield* reminderStatus(reminderId), "sent")
        const reminderRow = yield* sqlRows((sql) =>
          sql<{ sent_at: Date }>`SELECT sent_at FROM event_reminders WHERE id = ${reminderId}`
        )
        assert.strictEqual(reminderRow[0]!.sent_at.toISOString(), dueAt.toISOString())
        assert.deepStrictEqual(
          (yield* deliveriesOf(event)).map((
            d
          ) => [d.kind, d.status, d.reminder_id === null ? null : Number(d.reminder_id)]),
          [["auto_24h", "sent", null], ["user", "sent", reminderId]]
        )

        // Later ticks deliver nothing again.
        yield* deliverDue(dueAt)
        yield* deliverDue(new Date(dueAt.getTime() + 10 * MINUTE))
        assert.strictEqual((yield* messagesOf(tenant)).length, 2)
        const read = yield* me.client.eventReminders.list({ path: { id: event.id } }).pipe(expectOk)
        assert.strictEqual(read.data[0]!.status, "sent")
      }))

    it.effect("automatic reminders: 24 h to events 23h30–24h30 ahead, 1 h to 30–90 minutes, going and interested only", () =>
      Effect.gen(function*() {
        const { members, organiser, tenant } = yield* withMembers(4)
        const [going, interested, notGoing, declined] = members
        const now = new Date()
        const in24h10m = yield* makeEvent(organiser, { startsInHours: 24 + 10 / 60, title: "in 24h10m" })
        const in25h = yield* makeEvent(organiser, { startsInHours: 25, title: "in 25h" })
        const in23h = yield* makeEvent(organiser, { startsInHours: 23, title: "in 23h" })
        const in1h = yield* makeEvent(organiser, { startsInHours: 1, title: "in 1h" })
        const in2h = yield* makeEvent(organiser, { startsInHours: 2, title: "in 2h" })
        const in20m = yield* makeEvent(organiser, { startsInHours: 1 / 3, title: "in 20m" })
        const cancelled = yield* makeEvent(organiser, { startsInHours: 24, title: "cancelled", status: "cancelled" })
        for (const event of [in24h10m, in25h, in23h, in1h, in2h, in20m, cancelled]) {
          yield* insertRsvp(event.id, going!, "going")
          yield* insertRsvp(event.id, interested!, "interested")
          yield* insertRsvp(event.id, notGoing!, "not_going")
          yield* insertRsvp(event.id, declined!, "declined")
        }
        yield* deliverDue(now)
        const sent = (yield* messagesOf(tenant)).map((m) => `${m.event.title}:${m.kind}:${m.user_id}`).sort()
        assert.deepStrictEqual(
          sent,
          [
            `in 1h:auto_1h:${going!.id}`,
            `in 1h:auto_1h:${interested!.id}`,
            `in 24h10m:auto_24h:${going!.id}`,
            `in 24h10m:auto_24h:${interested!.id}`
          ].sort()
        )
        assert.deepStrictEqual((yield* deliveriesOf(in24h10m)).map((d) => `${d.kind}:${d.status}`), [
          "auto_24h:sent",
          "auto_24h:sent"
        ])
        for (const event of [in25h, in23h, in2h, in20m, cancelled]) {
          assert.deepStrictEqual(yield* deliveriesOf(event), [])
        }

        // An hour later the 25-hour event is in its window; nothing is sent twice.
        yield* deliverDue(new Date(now.getTime() + HOUR))
        const later = (yield* messagesOf(tenant)).map((m) => `${m.event.title}:${m.kind}`)
        assert.strictEqual(later.filter((m) => m === "in 24h10m:auto_24h").length, 2)
        assert.strictEqual(later.filter((m) => m === "in 1h:auto_1h").length, 2)
        assert.strictEqual(later.filter((m) => m === "in 25h:auto_24h").length, 2)
        // The event 2 hours away came into its 1-hour window (start in 60 minutes from then).
        assert.strictEqual(later.filter((m) => m === "in 2h:auto_1h").length, 2)
        assert.strictEqual(later.length, 8)
      }))

    it.effect("a claim older than an hour is released and delivered; a younger one is left alone", () =>
      Effect.gen(function*() {
        const { members, organiser, tenant } = yield* withMembers(2)
        const [a, b] = members
        const now = new Date()
        const event = yield* makeEvent(organiser, { startsInHours: 24 + 20 / 60 })
        yield* insertRsvp(event.id, a!, "going")
        yield* insertRsvp(event.id, b!, "going")
        // Runners that died holding claims: one 2 hours ago, one 30 minutes ago.
        yield* sqlRows((sql) =>
          sql`INSERT INTO event_reminder_deliveries (tenant_id, event_id, user_id, kind, status, claimed_at)
            VALUES (${tenant.id}, ${event.id}, ${a!.id}, 'auto_24h', 'claimed', ${new Date(
            now.getTime() - 2 * HOUR
          )}),
                   (${tenant.id}, ${event.id}, ${b!.id}, 'auto_24h', 'claimed', ${new Date(
            now.getTime() - 30 * MINUTE
          )})`
        )
        const report = yield* deliverDue(now)
        assert.isAtLeast(report.released, 1)
        assert.deepStrictEqual((yield* messagesOf(tenant)).map((m) => m.user_id), [a!.id])
        assert.deepStrictEqual(
          (yield* deliveriesOf(event)).map((d) => [Number(d.user_id), d.status]),
          [[a!.id, "sent"], [b!.id, "claimed"]].sort((x, y) => Number(x[0]) - Number(y[0]))
        )
        // Once that claim is over an hour old too, it is released and delivered — still once each.
        yield* deliverDue(new Date(now.getTime() + 31 * MINUTE))
        assert.deepStrictEqual(
          (yield* messagesOf(tenant)).map((m) => m.user_id).sort(),
          [a!.id, b!.id].sort()
        )
        assert.isTrue((yield* deliveriesOf(event)).every((d) => d.status === "sent"))
      }))

    it.effect("failures are recorded as failed with the reason and do not stop the other deliveries", () =>
      Effect.gen(function*() {
        const { members, organiser, tenant } = yield* withMembers(3)
        const [a, b, c] = members
        const event = yield* makeEvent(organiser, { startsInHours: 48, title: "goes ahead" })
        const doomed = yield* makeEvent(organiser, { startsInHours: 47, title: "cancelled later" })
        for (const m of [a!, b!, c!]) yield* insertRsvp(event.id, m, "going")
        yield* insertRsvp(doomed.id, a!, "going")
        const start = yield* startOf(event)
        // Due an hour before the start; checked only after the start: the event has begun.
        const late = yield* addReminder(event, a!, 60)
        const onTime = yield* addReminder(event, b!, 1440)
        const ofCancelled = yield* addReminder(doomed, a!, 1440)
        yield* sqlRows((sql) => sql`UPDATE events SET status = 'cancelled' WHERE id = ${doomed.id}`)
        // c answered not_going behind the entity's back: the reminder is cancelled, not sent.
        const gone = yield* addReminder(event, c!, 1440)
        yield* sqlRows((sql) =>
          sql`UPDATE event_rsvps SET status = 'not_going' WHERE event_id = ${event.id} AND user_id = ${c!.id}`
        )

        // First tick: 23 hours before the start — b's 24 h reminder and the cancelled event's are due.
        yield* deliverDue(new Date(start.getTime() - 23 * HOUR))
        assert.strictEqual(yield* reminderStatus(onTime), "sent")
        assert.strictEqual(yield* reminderStatus(ofCancelled), "failed")
        assert.strictEqual(yield* reminderStatus(gone), "cancelled")
        assert.deepStrictEqual(
          (yield* deliveriesOf(doomed)).map((d) => [d.kind, d.status, d.failure_reason]),
          [["user", "failed", "the event was cancelled"]]
        )
        // Second tick, after the start: a's 1 h reminder can no longer be of use.
        const report = yield* deliverDue(new Date(start.getTime() + 5 * MINUTE))
        assert.isAtLeast(report.failed, 1)
        assert.strictEqual(yield* reminderStatus(late), "failed")
        const failed = (yield* deliveriesOf(event)).filter((d) => d.status === "failed")
        assert.deepStrictEqual(failed.map((d) => [Number(d.user_id), d.kind, d.failure_reason]), [
          [a!.id, "user", "the event has already started"]
        ])
        const users = (yield* messagesOf(tenant)).filter((m) => m.kind === "user").map((m) => m.reminder_id)
        assert.deepStrictEqual(users, [onTime])
        // Failed stays failed: later ticks do not try again.
        yield* deliverDue(new Date(start.getTime() + 10 * MINUTE))
        assert.strictEqual((yield* deliveriesOf(event)).filter((d) => d.status === "failed").length, 1)
      }))
  }
)

describe("reminder delivery on two runners (socket mode) sharing one database", () => {
  it.scopedLive(
    "both processes ticking at the same moment deliver each (reminder, recipient) exactly once",
    () =>
      Effect.gen(function*() {
        const { onA, onB } = yield* twoServers()

        const { members, organiser, tenant } = yield* onA(withMembers(20))
        const events = [
          yield* onA(makeEvent(organiser, { startsInHours: 24 })),
          yield* onA(makeEvent(organiser, { startsInHours: 24.2 })),
          yield* onA(makeEvent(organiser, { startsInHours: 1 }))
        ]
        const reminderIds: Array<number> = []
        for (const event of events) {
          for (const m of members) {
            yield* onA(insertRsvp(event.id, m, "going"))
            reminderIds.push(yield* onA(addReminder(event, m, 60)))
          }
        }
        // Every user reminder (an hour before each start) and automatic reminder is due at the last tick.
        const start = yield* onA(startOf(events[1]!))
        const ticks = [new Date(), new Date(start.getTime() - 60 * MINUTE)]
        for (const now of ticks) {
          yield* Effect.all([onA(deliverDue(now)), onB(deliverDue(now)), onA(deliverDue(now)), onB(deliverDue(now))], {
            concurrency: "unbounded"
          })
        }
        const messages = yield* onB(messagesOf(tenant))
        const keys = messages.map((m) => `${m.kind}:${m.event_id}:${m.user_id}`)
        assert.strictEqual(new Set(keys).size, keys.length, "no (reminder, recipient) twice")
        // 60 user reminders; auto_24h for the two day-ahead events at the first tick; auto_1h for the hour-ahead
        // one at the first tick and for the two others at the second: 20 recipients each.
        assert.strictEqual(messages.filter((m) => m.kind === "user").length, 60)
        assert.strictEqual(messages.filter((m) => m.kind === "auto_24h").length, 40)
        assert.strictEqual(messages.filter((m) => m.kind === "auto_1h").length, 60)
        const deliveries = yield* onA(sqlRows((sql) =>
          sql<{ n: number; sent: number }>`
            SELECT count(*)::int AS n, count(*) FILTER (WHERE status = 'sent')::int AS sent
            FROM event_reminder_deliveries WHERE tenant_id = ${tenant.id}`
        ))
        assert.deepStrictEqual(deliveries[0], { n: 160, sent: 160 })
        for (const id of reminderIds) assert.strictEqual(yield* onB(reminderStatus(id)), "sent")
      }),
    240_000
  )
})

layer(
  TestApp({ JOBS_SCHEDULER: "on", JOB_SCHEDULES: JSON.stringify({ "reminders.deliver": "* * * * * *" }) }),
  { excludeTestServices: true, timeout: "120 seconds" }
)(
  "the reminders.deliver job on the jobs' scheduler (a cluster singleton on the serving process)",
  (it) => {
    it.effect("delivers due reminders by itself, on the real clock, once", () =>
      Effect.gen(function*() {
        const { members, organiser, tenant } = yield* withMembers(2)
        const event = yield* makeEvent(organiser, { startsInHours: 1 })
        for (const m of members) yield* insertRsvp(event.id, m, "going")
        const messages = yield* messagesOf(tenant).pipe(
          Effect.filterOrFail((rows) => rows.length >= 2, () => "not yet"),
          Effect.retry(Schedule.spaced("100 millis")),
          Effect.timeout("30 seconds")
        )
        assert.deepStrictEqual(messages.map((m) => m.kind), ["auto_1h", "auto_1h"])
        // Several more ticks later, still once each.
        yield* Effect.sleep("1 second")
        assert.strictEqual((yield* messagesOf(tenant)).length, 2)
      }))
  }
)
