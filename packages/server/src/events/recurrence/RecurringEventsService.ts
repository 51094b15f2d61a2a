import {
  type CreateRecurringEvent,
  CurrentTenant,
  DomainEvents,
  EventCancelled,
  type EventId,
  RecurringEventCreated,
  type UpdateEvent,
  type UpdateRecurringEvent,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, Clock, Effect, Either } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { CommunityMember } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { changedColumns, checkTimes, EDITABLE, NOTIFIED_CHANGES, toDate } from "../EventEdits.js"
import { EventInputs, eventInsertOf } from "../EventInputs.js"
import { EventLifecycle, foundEvent } from "../EventLifecycle.js"
import { EventPollsRepo } from "../EventPollsRepo.js"
import { EventRepo } from "../EventRepo.js"
import { type EventPatch, type EventRow, templateIdOf } from "../EventRow.js"
import { eventSnapshot } from "../EventSnapshot.js"
import { EventEditor, requireEventEditor, requireEventMember } from "../EventsPolicy.js"
import { EventsService } from "../EventsService.js"
import { seriesOccurrenceOf } from "../EventView.js"
import { EventViews } from "../EventViews.js"
import { type OccurrenceInsert, OccurrenceRepo } from "./OccurrenceRepo.js"
import { expandRecurrence } from "./Recurrence.js"
import { RecurrenceRepo } from "./RecurrenceRepo.js"
import { recurrenceOf } from "./RecurrenceRequest.js"

/** Scope `all` never moves times (spec "Events"): sending them is refused so that clients learn it. */
const TIME_FIELDS = ["start_time", "end_time"] as const

/** Recurring series (spec "Events"): create a template with its rule and occurrences; scoped edits. */
export class RecurringEventsService extends Effect.Service<RecurringEventsService>()("RecurringEventsService", {
  dependencies: [
    EventRepo.Default,
    EventPollsRepo.Default,
    OccurrenceRepo.Default,
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
    const polls = yield* EventPollsRepo
    const occurrenceRows = yield* OccurrenceRepo
    const rules = yield* RecurrenceRepo
    const views = yield* EventViews
    const lifecycle = yield* EventLifecycle
    const inputs = yield* EventInputs
    const service = yield* EventsService
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const find = (id: number) => foundEvent(events.findById(id))

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
          ...yield* inputs.groupIssues(input.group_id, organiser),
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
          const template = yield* occurrenceRows.insertTemplate(
            eventInsertOf(input, organiser.userId, timesAt(first.start), categoryId)
          )
          const templateId = template.id
          const occurrences = yield* occurrenceRows.insertOccurrences(
            series.occurrences.map((occurrence): OccurrenceInsert => ({
              ...eventInsertOf(input, organiser.userId, timesAt(occurrence.start), categoryId),
              parent_event_id: templateId,
              occurrence_date: occurrence.date
            }))
          )
          yield* rules.insert({
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
          yield* polls.link([templateId, ...occurrences.map((o) => o.id)], pollIds)
          yield* outbox.append(
            new DomainEvents.CommunityEventCreated({
              event_id: templateId,
              user_id: organiser.userId,
              event: eventSnapshot(template),
              poll_ids: pollIds,
              occurrence_count: occurrences.length,
              occurrence_ids: occurrences.map((o) => o.id)
            })
          )
          return { occurrences, template }
        }))
        const view = yield* views.one(template)
        return RecurringEventCreated.make({
          ...view,
          series_occurrences: occurrences.map(seriesOccurrenceOf)
        })
      },
      requireEventMember
    )

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
          before: occurrenceRows.detach(row.id),
          outbox: { scope: "single", event_ids: [row.id], detached_from: templateId }
        })

    /**
     * Scope `all`: the fields sent go to the template and every occurrence that has not started and is not
     * cancelled, in one UPDATE; times never change. Capacity changes nudge each event's entity after the commit.
     */
    const updateAll = (row: EventRow, templateId: number, input: UpdateEvent) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const template = row.id === templateId ? row : yield* find(templateId)
        if (row.status === "cancelled" || template.status === "cancelled") {
          return yield* new EventCancelled({ message: "This series is cancelled and can no longer be edited" })
        }
        const { category_id: _category, end_time: _end, poll_ids: _polls, start_time: _start, ...plain } = input
        const timeIssues = TIME_FIELDS.filter((field) => input[field] !== undefined).map((field) => ({
          field,
          message: "is never changed for a whole series: edit one occurrence with scope single"
        }))
        const category = yield* inputs.resolveCategory(input.category_id, undefined)
        const groupChanged = input.group_id !== undefined && input.group_id !== template.group_id
        const groupIssues = groupChanged ? yield* inputs.groupIssues(input.group_id, editor) : []
        const issues = [...timeIssues, ...category.issues, ...groupIssues]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        const patch: EventPatch = {
          ...plain,
          ...(input.category_id === undefined ? {} : { category_id: category.id ?? null })
        }
        const pollIds = input.poll_ids === undefined ? undefined : [...new Set(input.poll_ids)]
        if (pollIds !== undefined) {
          // Polls already on the series may stay whoever edits; new ones must be the editor's own.
          const linked = (yield* polls.byEvents([templateId])).get(templateId) ?? []
          yield* inputs.requireOwnPolls(pollIds.filter((p) => !linked.includes(p)), editor.userId)
        }
        const sent = EDITABLE.filter((field) => field === "poll_ids" ? pollIds !== undefined : field in patch)
        if (sent.length === 0) return yield* views.one(row)
        const changed = changedColumns(template, patch)
        const at = yield* now
        const updated = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* occurrenceRows.updateSeries(templateId, patch, at)
          const ids = updated.map((r) => r.id)
          if (pollIds !== undefined) yield* polls.replace(ids, pollIds)
          const head = updated[0]!
          yield* outbox.append(
            new DomainEvents.CommunityEventUpdated({
              event_id: templateId,
              user_id: head.user_id,
              changed: NOTIFIED_CHANGES.filter((field) => sent.includes(field) && changed.includes(field)),
              fields: sent,
              updated_by: editor.userId,
              event: eventSnapshot(head),
              scope: "all",
              event_ids: ids
            })
          )
          return updated
        }))
        if ("max_attendees" in patch) {
          yield* Effect.forEach(updated, (r) => lifecycle.refresh(r.id), { concurrency: 4, discard: true })
        }
        const own = updated.find((r) => r.id === row.id)
        return yield* views.one(own ?? (yield* find(row.id)))
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
    })

    return { create, update } as const
  })
}) {}
