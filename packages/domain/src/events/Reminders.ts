import { Schema } from "effect"
import { RecordId } from "../http/Ids.js"

/** How long before the start a member's own reminder goes out (spec "Limits": 60, 1440 or 10080 minutes). */
export const ReminderOffset = Schema.Literal(60, 1440, 10080)
export type ReminderOffset = typeof ReminderOffset.Type

/** Where a reminder goes: the bell, e-mail, or both (decisions D8). */
export const ReminderChannel = Schema.Literal("platform", "email", "both")
export type ReminderChannel = typeof ReminderChannel.Type

/** Spec "Reminder": `pending` until delivered (`sent`), `cancelled` when the RSVP goes, `failed` with a reason. */
export const ReminderStatus = Schema.Literal("pending", "sent", "cancelled", "failed")
export type ReminderStatus = typeof ReminderStatus.Type

export const ReminderRequest = Schema.Struct({
  offset_minutes: ReminderOffset.annotations({ description: "Minutes before the event's start" }),
  channel: ReminderChannel
})
export type ReminderRequest = typeof ReminderRequest.Type

/** `PUT /events/{id}/reminders`: the caller's whole set (an empty list clears it); each offset at most once. */
export const SetReminders = Schema.Struct({
  reminders: Schema.Array(ReminderRequest).pipe(Schema.maxItems(3))
})
export type SetReminders = typeof SetReminders.Type

/** One of the caller's reminders of an event; `scheduled_for` = start − offset. */
export const EventReminder = Schema.Struct({
  id: RecordId,
  offset_minutes: ReminderOffset,
  channel: ReminderChannel,
  status: ReminderStatus,
  scheduled_for: Schema.DateTimeUtc
})
export type EventReminder = typeof EventReminder.Type
