import { Schema } from "effect"
import { CalendarDate } from "../http/CalendarDate.js"
import { CreateEvent, Event, RecurrenceFrequency, SeriesOccurrence, UpdateEvent } from "./Event.js"

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** When a series stops: after a number of occurrences (at most 52) or on a date (inclusive). */
export const RecurrenceEndsType = Schema.Literal("after_count", "on_date")
export type RecurrenceEndsType = typeof RecurrenceEndsType.Type

/** Spec "Limits": a series has at most this many occurrences. */
export const MAX_RECURRING_OCCURRENCES = 52

/**
 * `POST /api/v2/events/recurring`: the fields of `POST /api/v2/events` plus the recurrence rule. Day names and the
 * RRULE are checked by the server (with the other rules of the series), so that every bad field is reported together.
 */
export const CreateRecurringEvent = Schema.Struct({
  ...CreateEvent.fields,
  recurrence_frequency: RecurrenceFrequency,
  recurrence_interval: exact(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1), Schema.lessThanOrEqualTo(1000)))
    .annotations({ description: "Every n days, weeks, months or years; default 1" }),
  recurrence_ends_type: exact(RecurrenceEndsType).annotations({ description: "Default `after_count`" }),
  recurrence_ends_after_count: exact(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1))).annotations({
    description: `Clamped to ${MAX_RECURRING_OCCURRENCES}; default ${MAX_RECURRING_OCCURRENCES}; ignored for on_date`
  }),
  recurrence_ends_on_date: exact(CalendarDate).annotations({
    description: "Last possible date (inclusive, in the community's time zone); required for on_date, else ignored"
  }),
  recurrence_days: exact(Schema.Array(Schema.String).pipe(Schema.maxItems(14))).annotations({
    description: "Weekly: day names (`monday`..`sunday` or `mon`..`sun`); default the start's day"
  }),
  recurrence_day_of_month: exact(Schema.Int.pipe(Schema.between(1, 31))).annotations({
    description: "Monthly: the day (clamped to the month's last day); default the start's day"
  }),
  rrule: exact(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(500))).annotations({
    description: "Custom: an RFC 5545 RRULE such as `FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10` (`RRULE:` prefix optional)"
  })
})
export type CreateRecurringEvent = typeof CreateRecurringEvent.Type

/**
 * The template (the series' definition; its start is the first occurrence's) and every occurrence made, under the
 * name and in the item shape of the event detail's `series_occurrences` (spec "Limits"), so a client reads both alike.
 */
export class RecurringEventCreated extends Schema.Class<RecurringEventCreated>("RecurringEventCreated")({
  ...Event.fields,
  series_occurrences: Schema.Array(SeriesOccurrence).annotations({
    description: "Every occurrence the create made (at most 52, all upcoming), soonest first; the same items as " +
      "`series_occurrences` of the event detail, which lists up to 50 upcoming, not cancelled ones"
  })
}) {}

/** `single`: detach one occurrence and change only it; `all`: the template and its future occurrences. */
export const RecurringEditScope = Schema.Literal("single", "all")
export type RecurringEditScope = typeof RecurringEditScope.Type

/** `PUT /api/v2/events/{id}/recurring`: the scope plus the fields of `PUT /api/v2/events/{id}`. */
export const UpdateRecurringEvent = Schema.Struct({
  scope: RecurringEditScope,
  ...UpdateEvent.fields
})
export type UpdateRecurringEvent = typeof UpdateRecurringEvent.Type
