import {
  CurrentUser,
  EventCancelled,
  EventEnded,
  type EventId,
  type EventReminder,
  Forbidden,
  type SetReminders,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Clock, DateTime, Effect } from "effect"
import { CommunityMember } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { foundEvent } from "../EventLifecycle.js"
import { requireEventMember } from "../EventsPolicy.js"
import { ReminderRepo, type ReminderRow } from "./ReminderRepo.js"

const MINUTE = 60_000

/** RSVPs that may hold reminders (decisions D8). */
export const REMINDABLE_RSVPS: ReadonlyArray<string> = ["going", "interested"]

/**
 * What is wrong with a wanted set of reminders: an offset given twice, or one whose time has passed (unless that
 * reminder was already sent — it stays sent). Pure, for tests.
 */
export const reminderIssues = (
  wanted: SetReminders["reminders"],
  start: Date,
  now: Date,
  alreadySent: ReadonlySet<number>
): Array<ValidationIssue> => {
  const seen = new Set<number>()
  const issues: Array<ValidationIssue> = []
  wanted.forEach((reminder, index) => {
    const field = `reminders.${index}.offset_minutes`
    if (seen.has(reminder.offset_minutes)) {
      issues.push({ field, message: "is given more than once" })
    } else if (
      !alreadySent.has(reminder.offset_minutes) && start.getTime() - reminder.offset_minutes * MINUTE <= now.getTime()
    ) {
      issues.push({ field, message: "is already past: the event starts sooner than that" })
    }
    seen.add(reminder.offset_minutes)
  })
  return issues
}

const toView = (row: ReminderRow): EventReminder => ({
  id: row.id,
  offset_minutes: row.offset_minutes,
  channel: row.channel,
  status: row.status,
  scheduled_for: DateTime.unsafeFromDate(row.scheduled_for)
})

/** A member's own reminders of an event (spec "Event reminder", decisions D8). */
export class RemindersService extends Effect.Service<RemindersService>()("RemindersService", {
  dependencies: [ReminderRepo.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ReminderRepo
    const db = yield* TenantSql
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const set = Effect.fn("Events.setReminders")(
      function*(eventId: EventId, input: SetReminders) {
        const member = yield* CommunityMember
        const event = yield* foundEvent(repo.target(eventId, member.userId))
        // Clearing is always allowed; a non-empty set needs an event still to come and a place at it.
        if (input.reminders.length > 0) {
          if (event.status === "cancelled") {
            return yield* new EventCancelled({ message: "This event is cancelled: there is nothing to remind of" })
          }
          const at = yield* now
          if (event.start_time.getTime() <= at.getTime()) {
            return yield* new EventEnded({ message: "This event has already started" })
          }
          if (event.rsvp === null || !REMINDABLE_RSVPS.includes(event.rsvp)) {
            return yield* new Forbidden({
              message: "Only members going or interested may set reminders for this event"
            })
          }
          const existing = yield* repo.ofUser(eventId, member.userId)
          const sent = new Set<number>(existing.filter((r) => r.status === "sent").map((r) => r.offset_minutes))
          const issues = reminderIssues(input.reminders, event.start_time, at, sent)
          if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        }
        return yield* db.transaction(Effect.gen(function*() {
          yield* repo.replace(eventId, member.userId, event.start_time, input.reminders)
          return (yield* repo.ofUser(eventId, member.userId)).map(toView)
        }))
      },
      requireEventMember
    )

    const list = Effect.fn("Events.reminders")(function*(eventId: EventId) {
      const actor = yield* CurrentUser
      yield* foundEvent(repo.target(eventId, actor.userId))
      return (yield* repo.ofUser(eventId, actor.userId)).map(toView)
    })

    return { set, list } as const
  })
}) {}
