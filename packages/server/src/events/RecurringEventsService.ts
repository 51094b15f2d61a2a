import {
  type CreateRecurringEvent,
  CurrentTenant,
  EventCancelled,
  type EventId,
  RecurringEventCreated,
  UpdateEvent,
  type UpdateRecurringEvent,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Clock, DateTime, Effect, Either, Option } from "effect"
import { CommunityMember } from "../identity/Policy.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EventInputs, eventInsertOf } from "./EventInputs.js"
import { EventLifecycle, eventNotFound } from "./EventLifecycle.js"
import { type EventPatch, EventRepo, type EventRow } from "./EventRepo.js"
import { eventSnapshot } from "./EventSnapshot.js"
import { EventEditor, requireEventEditor, requireEventMember } from "./EventsPolicy.js"
import { changedColumns, checkTimes, EventsService, gateEvents, NOTIFIED_CHANGES } from "./EventsService.js"
import { EventViews, seriesOccurrenceOf } from "./EventViews.js"
import { expandRecurrence, parseWeekdays, type RecurrenceEnds, type RecurrenceRule } from "./Recurrence.js"
import { type OccurrenceInsert, RecurrenceRepo } from "./RecurrenceRepo.js"

const toDate = (value: DateTime.Utc) => DateTime.toDate(value)

/** The editable fields in the contract's order (as `CommunityEventUpdated.fields` lists them). */
const EDITABLE: ReadonlyArray<string> = Object.keys(UpdateEvent.fields)

/** Scope `all` never moves times (spec "Events"): sending them is refused so that clients learn it. */
const TIME_FIELDS = ["start_time", "end_time"] as const

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

/** Recurring series (spec "Events"): create a template with its rule and occurrences; scoped edits. */
export class RecurringEventsService extends Effect.Service<RecurringEventsService>()("RecurringEventsService", {
  dependencies: [
    EventRepo.Default,
    RecurrenceRepo.Default,
    EventViews.Default,
    EventLifecycle.Default,
    EventInputs.Default,
    EventsService.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const events = yield* EventRepo
    const repo = yield* RecurrenceRepo
    const views = yield* EventViews
    const lifecycle = yield* EventLifecycle
    const inputs = yield* EventInputs
    const service = yield* EventsService
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const find = (id: number) =>
      Effect.flatMap(
        events.findById(id),
        Option.match({ onNone: () => Effect.fail(eventNotFound()), onSome: Effect.succeed })
      )

    const create = Effect.fn("Events.createRecurring")(
      function*(input: CreateRecurringEvent) {
        const organiser = yield* CommunityMember
        const tenant = yield* CurrentTenant
        const at = yield* now
        const start = toDate(input.start_time)
        const end = input.end_time === undefined || input.end_time === null ? null : toDate(input.end_time)
        const category = yield* inputs.resolveCategory(input.category_id, input.category_name)
        const recurrence = recurrenceOf(input)
        const expansion = Either.flatMap(
          recurrence,
          ({ ends, rule }) => expandRecurrence({ start, timezone: tenant.timezone, now: at, rule, ends })
        )
        const issues = [
          ...checkTimes({ start, end, startChanged: true, endSent: true }, at),
          ...category.issues,
          ...Either.match(expansion, { onLeft: (issues) => issues, onRight: () => [] })
        ]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        if (Either.isLeft(expansion) || Either.isLeft(recurrence)) {
          return yield* Effect.dieMessage("A refused recurrence rule came without its issues")
        }
        const { ends, rule } = recurrence.right
        const series = expansion.right
        const pollIds = [...new Set(input.poll_ids ?? [])]
        yield* inputs.requireOwnPolls(pollIds, organiser.userId)

        const duration = end === null ? null : end.getTime() - start.getTime()
        const timesAt = (occurrenceStart: Date) => ({
          start: occurrenceStart,
          end: duration === null ? null : new Date(occurrenceStart.getTime() + duration)
        })
        const categoryId = category.id ?? null
        const first = series.occurrences[0]!
        const { occurrences, template } = yield* db.transaction(Effect.gen(function*() {
          // The template holds the series' definition and its first date; every date is also an occurrence row.
          const template = yield* repo.insertTemplate(
            eventInsertOf(input, organiser.userId, timesAt(first.start), categoryId)
          )
          const templateId = Number(template.id)
          const occurrences = yield* repo.insertOccurrences(series.occurrences.map((occurrence): OccurrenceInsert => ({
            ...eventInsertOf(input, organiser.userId, timesAt(occurrence.start), categoryId),
            parent_event_id: templateId,
            occurrence_date: occurrence.date
          })))
          yield* repo.insertRule({
            event_id: templateId,
            frequency: rule.frequency,
            interval_value: series.interval,
            days_of_week: series.days,
            day_of_month: series.dayOfMonth,
            rrule: series.rrule,
            ends_type: ends.type,
            ends_after_count: ends.type === "after_count" ? series.occurrences.length : null,
            ends_on_date: ends.type === "on_date" ? ends.date : null,
            timezone: series.timezone
          })
          yield* repo.linkPolls([templateId, ...occurrences.map((o) => Number(o.id))], pollIds)
          yield* outbox.append("CommunityEventCreated", {
            event_id: templateId,
            user_id: organiser.userId,
            event: eventSnapshot(template),
            poll_ids: pollIds,
            occurrence_count: occurrences.length,
            occurrence_ids: occurrences.map((o) => Number(o.id))
          })
          return { occurrences, template }
        }))
        const view = yield* views.one(template)
        return RecurringEventCreated.make({
          ...view,
          series_occurrences: occurrences.map(seriesOccurrenceOf)
        })
      },
      requireEventMember,
      gateEvents
    )

    /** The series an event belongs to: its own id for a template, its parent's for an occurrence. */
    const templateIdOf = (row: EventRow): number | null =>
      row.is_recurring_template ? Number(row.id) : row.parent_event_id === null ? null : Number(row.parent_event_id)

    /** Scope `single`: the occurrence leaves its series and takes the edit alone (times included). */
    const updateSingle = (row: EventRow, templateId: number, input: UpdateEvent) =>
      row.is_recurring_template
        ? Effect.fail(
          ValidationFailed.field(
            "scope",
            "a template holds the whole series: edit it with scope all, or one of its occurrences with scope single"
          )
        )
        : service.applyUpdate(row, input, {
          before: repo.detach(Number(row.id)),
          outbox: { scope: "single", event_ids: [Number(row.id)], detached_from: templateId }
        })

    /**
     * Scope `all`: the fields sent go to the template and every occurrence that has not started and is not
     * cancelled, in one UPDATE; times never change. Capacity changes nudge each event's entity after the commit.
     */
    const updateAll = (row: EventRow, templateId: number, input: UpdateEvent) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const template = Number(row.id) === templateId ? row : yield* find(templateId)
        if (row.status === "cancelled" || template.status === "cancelled") {
          return yield* new EventCancelled({ message: "This series is cancelled and can no longer be edited" })
        }
        const { category_id: _category, end_time: _end, poll_ids: _polls, start_time: _start, ...plain } = input
        const timeIssues = TIME_FIELDS.filter((field) => input[field] !== undefined).map((field) => ({
          field,
          message: "is never changed for a whole series: edit one occurrence with scope single"
        }))
        const category = yield* inputs.resolveCategory(input.category_id, undefined)
        const issues = [...timeIssues, ...category.issues]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        const patch: EventPatch = {
          ...plain,
          ...(input.category_id === undefined ? {} : { category_id: category.id ?? null })
        }
        const pollIds = input.poll_ids === undefined ? undefined : [...new Set(input.poll_ids)]
        if (pollIds !== undefined) {
          // Polls already on the series may stay whoever edits; new ones must be the editor's own.
          const linked = (yield* events.pollIds([templateId])).get(templateId) ?? []
          yield* inputs.requireOwnPolls(pollIds.filter((p) => !linked.includes(p)), editor.userId)
        }
        const sent = EDITABLE.filter((field) => field === "poll_ids" ? pollIds !== undefined : field in patch)
        if (sent.length === 0) return yield* views.one(row)
        const changed = changedColumns(template, patch)
        const at = yield* now
        const updated = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* repo.updateSeries(templateId, patch, at)
          const ids = updated.map((r) => Number(r.id))
          if (pollIds !== undefined) yield* repo.replacePolls(ids, pollIds)
          const head = updated[0]!
          yield* outbox.append("CommunityEventUpdated", {
            event_id: templateId,
            user_id: Number(head.user_id),
            changed: NOTIFIED_CHANGES.filter((field) => sent.includes(field) && changed.includes(field)),
            fields: sent,
            updated_by: editor.userId,
            event: eventSnapshot(head),
            scope: "all",
            event_ids: ids
          })
          return updated
        }))
        if ("max_attendees" in patch) {
          yield* Effect.forEach(updated, (r) => lifecycle.refresh(Number(r.id)), { concurrency: 4, discard: true })
        }
        const own = updated.find((r) => r.id === row.id)
        return yield* views.one(own ?? (yield* find(Number(row.id))))
      })

    const update = Effect.fn("Events.updateRecurring")(function*(id: EventId, input: UpdateRecurringEvent) {
      const row = yield* find(id)
      const { scope, ...fields } = input
      return yield* requireEventEditor(row)(Effect.gen(function*() {
        const templateId = templateIdOf(row)
        if (templateId === null) {
          return yield* ValidationFailed.field("scope", "this event is not part of a recurring series")
        }
        return yield* scope === "single"
          ? updateSingle(row, templateId, fields)
          : updateAll(row, templateId, fields)
      }))
    }, gateEvents)

    return { create, update } as const
  })
}) {}
