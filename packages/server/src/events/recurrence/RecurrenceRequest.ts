import type { CreateRecurringEvent, ValidationIssue } from "@timebank/domain"
import { Array as Arr, Either } from "effect"
import { parseWeekdays, type RecurrenceEnds, type RecurrenceRule } from "./Recurrence.js"

/** The rule a create asks for, or every issue of its recurrence fields (spec "Events": `POST /events/recurring`). */
export const recurrenceOf = (
  input: Pick<
    CreateRecurringEvent,
    | "recurrence_frequency"
    | "recurrence_interval"
    | "recurrence_ends_type"
    | "recurrence_ends_after_count"
    | "recurrence_ends_on_date"
    | "recurrence_days"
    | "recurrence_day_of_month"
    | "rrule"
  >
): Either.Either<{ readonly rule: RecurrenceRule; readonly ends: RecurrenceEnds }, ReadonlyArray<ValidationIssue>> => {
  const issues: Array<ValidationIssue> = []
  const interval = input.recurrence_interval ?? 1
  // Day names are checked whenever sent, so that a typo is reported rather than silently ignored.
  const days = parseWeekdays(input.recurrence_days ?? [])
  if (Either.isLeft(days)) issues.push(days.left)
  if (input.recurrence_frequency === "custom" && input.rrule === undefined) {
    issues.push({ field: "rrule", message: "is required when recurrence_frequency is custom" })
  }
  const endsType = input.recurrence_ends_type ?? "after_count"
  if (endsType === "on_date" && input.recurrence_ends_on_date === undefined) {
    issues.push({ field: "recurrence_ends_on_date", message: "is required when recurrence_ends_type is on_date" })
  }
  if (Arr.isNonEmptyArray(issues)) return Either.left(issues)
  const ends: RecurrenceEnds = endsType === "on_date"
    ? { type: "on_date", date: input.recurrence_ends_on_date! }
    : { type: "after_count", count: input.recurrence_ends_after_count }
  const frequency = input.recurrence_frequency
  const rule: RecurrenceRule = frequency === "custom"
    ? { frequency, rrule: input.rrule! }
    : frequency === "weekly"
    ? { frequency, interval, days: Either.getOrThrow(days) }
    : frequency === "monthly"
    ? { frequency, interval, dayOfMonth: input.recurrence_day_of_month }
    : { frequency, interval }
  return Either.right({ rule, ends })
}
