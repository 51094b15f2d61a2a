import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { UserId } from "@timebank/domain"
import { ReminderDelivery } from "@timebank/server"
import { Effect } from "effect"
import { expectOk } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { answer, insertRsvp, makeEvent, type TestEvent } from "../fixtures/events.js"
import { TestApp } from "../fixtures/TestApp.js"
import type { TestUser } from "../fixtures/users.js"
import { bellsOn, expectNoBells, expectOneBell, mailsOn } from "./eventBells.js"

/** Signed in by token (fast); `members` more are "Member 1", "Member 2", … in order. */
const people = (members: number) => community({ members, signIn: "token" })

/** One tick of reminder delivery at `now` (tests choose the clock; nothing else runs it here). */
const deliverDue = (now: Date) =>
  Effect.flatMap(ReminderDelivery, (delivery) => delivery.deliverDue(now)).pipe(
    Effect.provide(ReminderDelivery.Default)
  )

/** A pending reminder of `user` a week before the event on `channel`, as `PUT /reminders` stores it. */
const weekBefore = (event: TestEvent, user: TestUser, channel: "platform" | "email" | "both") =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql`INSERT INTO event_reminders (tenant_id, event_id, user_id, offset_minutes, channel, scheduled_for)
        SELECT tenant_id, id, ${user.id}, 10080, ${channel}, start_time - interval '7 days'
        FROM events WHERE id = ${event.id}`
  ).pipe(Effect.orDie, Effect.asVoid)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("event notifications (2)", (it) => {
  describe("waitlist", () => {
    it.effect("a promotion rings event_waitlist_promoted for the promoted member only, in the service's name", () =>
      Effect.gen(function*() {
        const c = yield* people(3)
        const organiser = c.member
        const [mia, noah, olle] = c.members
        const event = yield* makeEvent(organiser, { maxAttendees: 1 })
        yield* answer(mia!.client, event, "going")
        for (const waiter of [noah!, olle!]) {
          assert.strictEqual((yield* answer(waiter.client, event, "going")).status, "waitlisted")
        }
        yield* expectNoBells([noah!], "event_waitlist_promoted", event)

        yield* mia!.client.eventRsvp.removeRsvp({ path: { id: event.id } }).pipe(expectOk)
        expectOneBell(yield* bellsOn(noah!, "event_waitlist_promoted", event), {
          type: "event_waitlist_promoted",
          title: `A place opened up: ${event.title}`,
          event,
          actor: null
        })
        const mails = yield* mailsOn(noah!, "event_waitlist_promoted", event)
        assert.deepStrictEqual(mails.map((m) => [m.subject, m.frequency]), [[
          `A place opened up: ${event.title}`,
          "instant"
        ]])
        yield* expectNoBells([mia!, olle!, organiser, c.admin], "event_waitlist_promoted", event)
      }))
  })

  describe("reminders", () => {
    it.effect("channel platform → bell only, email → e-mail only, both → both", () =>
      Effect.gen(function*() {
        const c = yield* people(3)
        const [onBell, onMail, onBoth] = c.members
        // Far from both automatic windows (24 h, 1 h), so only the members' own reminders are due.
        const event = yield* makeEvent(c.member, { startsInHours: 100 })
        for (const [who, channel] of [[onBell!, "platform"], [onMail!, "email"], [onBoth!, "both"]] as const) {
          yield* insertRsvp(event.id, who, "going")
          yield* weekBefore(event, who, channel)
        }
        const report = yield* deliverDue(new Date())
        assert.strictEqual(report.sent, 3)

        const reminder = { type: "event_reminder", title: `Reminder: ${event.title}`, event, actor: null }
        const bell = expectOneBell(yield* bellsOn(onBell!, "event_reminder", event), reminder)
        assert.include(bell.body, "Starts in one week")
        assert.deepStrictEqual(yield* mailsOn(onBell!, "event_reminder", event), [])

        yield* expectNoBells([onMail!], "event_reminder", event)
        const mails = yield* mailsOn(onMail!, "event_reminder", event)
        assert.deepStrictEqual(mails.map((m) => [m.subject, m.frequency]), [[reminder.title, "instant"]])
        assert.include(mails[0]!.email_body, "Starts in one week")

        expectOneBell(yield* bellsOn(onBoth!, "event_reminder", event), reminder)
        assert.strictEqual((yield* mailsOn(onBoth!, "event_reminder", event)).length, 1)

        // Only those who asked: the organiser and the others hear nothing.
        yield* expectNoBells([c.member, c.admin, c.other], "event_reminder", event)
      }))
  })

  describe("recipient's language", () => {
    it.effect("a German member gets the cancellation in German while the English organiser cancels", () =>
      Effect.gen(function*() {
        const c = yield* people(0)
        const organiser = c.member
        const german = c.other
        const english = c.admin
        yield* expectOk(german.client.users.updateMe({ payload: { preferred_language: "de" } }))
        const event = yield* makeEvent(organiser)
        yield* insertRsvp(event.id, german, "going")
        yield* insertRsvp(event.id, english, "interested")
        yield* organiser.client.events.cancel({ path: { id: event.id }, payload: { reason: "Regen" } }).pipe(
          expectOk
        )

        const bell = expectOneBell(yield* bellsOn(german, "event_cancelled", event), {
          type: "event_cancelled",
          title: `Veranstaltung abgesagt: ${event.title}`,
          event,
          actor: organiser
        })
        assert.include(bell.body, "Grund: Regen")
        const [mail] = yield* mailsOn(german, "event_cancelled", event)
        assert.strictEqual(mail?.subject, `Veranstaltung abgesagt: ${event.title}`)
        assert.include(mail!.email_body, "wurde abgesagt")

        const englishBell = expectOneBell(yield* bellsOn(english, "event_cancelled", event), {
          type: "event_cancelled",
          title: `Event cancelled: ${event.title}`,
          event,
          actor: organiser
        })
        assert.include(englishBell.body, "Reason: Regen")
      }))
  })

  describe("mute", () => {
    it.effect("a member who muted the organiser gets no event_cancelled bell and no e-mail; service bells still come", () =>
      Effect.gen(function*() {
        const c = yield* people(1)
        const organiser = c.member
        const muter = c.other
        const [listener] = c.members
        yield* muter.client.notificationSettings.mute({ path: { id: UserId.make(organiser.id) } }).pipe(expectOk)
        const event = yield* makeEvent(organiser)
        // The confirmation has no acting member: a mute never suppresses it (D12a).
        yield* answer(muter.client, event, "going")
        expectOneBell(yield* bellsOn(muter, "event_rsvp_confirmed", event), {
          type: "event_rsvp_confirmed",
          title: `You are going to ${event.title}`,
          event,
          actor: null
        })
        yield* insertRsvp(event.id, listener!, "going")

        yield* organiser.client.events.cancel({ path: { id: event.id }, payload: {} }).pipe(expectOk)
        expectOneBell(yield* bellsOn(listener!, "event_cancelled", event), {
          type: "event_cancelled",
          title: `Event cancelled: ${event.title}`,
          event,
          actor: organiser
        })
        assert.strictEqual((yield* mailsOn(listener!, "event_cancelled", event)).length, 1)
        yield* expectNoBells([muter], "event_cancelled", event)
        assert.deepStrictEqual(yield* mailsOn(muter, "event_cancelled", event), [])
      }))
  })
})
