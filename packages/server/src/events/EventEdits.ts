import { UpdateEvent, type ValidationIssue } from "@timebank/domain"
import { DateTime } from "effect"
import type { EventPatch, EventRow } from "./EventRow.js"

/** Edits that members going or interested hear about (spec "Event-related notifications"). */
export const NOTIFIED_CHANGES = ["title", "start_time", "end_time", "location"] as const

/** The editable fields in the contract's order, so that `fields` of CommunityEventUpdated reads the same each time. */
export const EDITABLE: ReadonlyArray<string> = Object.keys(UpdateEvent.fields)

/** Edits after which the event's entity must look again: capacity, and times (an event may end or reopen). */
export const PLACE_CHANGES: ReadonlyArray<string> = ["max_attendees", "start_time", "end_time"]

export const toDate = (value: DateTime.Utc) => DateTime.toDate(value)

/** Whether a column value and a sent value are the same (dates by instant). */
const same = (current: unknown, next: unknown) =>
  current instanceof Date && next instanceof Date ? current.getTime() === next.getTime() : current === next

/** The columns of `row` that `patch` really changes, in the patch's order. */
export const changedColumns = (row: EventRow, patch: EventPatch): ReadonlyArray<keyof EventPatch> =>
  (Object.keys(patch) as Array<keyof EventPatch>).filter((key) => !same(row[key], patch[key]))

export const samePolls = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  const bs = new Set(b)
  return a.length === bs.size && a.every((id) => bs.has(id))
}

/** The columns an edit sends, as the database holds them (category and polls are resolved apart). */
export const patchOf = (input: UpdateEvent): EventPatch => {
  const { category_id: _category, end_time, poll_ids: _polls, start_time, ...plain } = input
  return {
    ...plain,
    ...(start_time === undefined ? {} : { start_time: toDate(start_time) }),
    ...(end_time === undefined ? {} : { end_time: end_time === null ? null : toDate(end_time) })
  }
}

/** The event's times after an edit, checked (spec "Event"): start in the future when it moves, end after start. */
export const checkTimes = (
  input: { readonly start: Date; readonly end: Date | null; readonly startChanged: boolean; readonly endSent: boolean },
  now: Date
): Array<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  if (input.startChanged && input.start.getTime() <= now.getTime()) {
    issues.push({ field: "start_time", message: "must be in the future" })
  }
  if (input.end !== null && input.end.getTime() <= input.start.getTime()) {
    issues.push(
      input.endSent
        ? { field: "end_time", message: "must be after start_time" }
        : { field: "start_time", message: "must be before the event's end_time" }
    )
  }
  return issues
}
