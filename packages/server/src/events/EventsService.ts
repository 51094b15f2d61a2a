import {
  type CancelEventPayload,
  type CreateEvent,
  type CurrentTenant,
  cursorPage,
  DomainEvents,
  encodeCursor,
  EventCancelled,
  type EventId,
  type ListEventsParams,
  type UpdateEvent,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, Clock, Effect } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import {
  changedColumns,
  checkTimes,
  EDITABLE,
  NOTIFIED_CHANGES,
  patchOf,
  PLACE_CHANGES,
  samePolls,
  toDate
} from "./EventEdits.js"
import { EventInputs, eventInsertOf } from "./EventInputs.js"
import { EventLifecycle, foundEvent } from "./EventLifecycle.js"
import { EventPollsRepo } from "./EventPollsRepo.js"
import { EventRepo } from "./EventRepo.js"
import type { EventPatch, EventRow } from "./EventRow.js"
import { eventSnapshot } from "./EventSnapshot.js"
import { EventEditor, requireEventEditor, requireEventMember } from "./EventsPolicy.js"
import { EventViews } from "./EventViews.js"
import { rescheduleReminders } from "./reminders/ReminderRepo.js"

/** Page size of the event list when the caller names none (max 50, in the contract). */
export const DEFAULT_EVENTS_PER_PAGE = 20

/** Extra steps of an edit made through the recurring routes (see `applyUpdate`). */
export interface UpdateOptions {
  readonly before?: Effect.Effect<void, never, CurrentTenant>
  readonly outbox?: Pick<DomainEvents.CommunityEventUpdated, "scope" | "event_ids" | "detached_from">
}

/** Community events (spec "Events"); the contract gates their routes on the `events` feature. */
export class EventsService extends Effect.Service<EventsService>()("EventsService", {
  dependencies: [
    EventRepo.Default,
    EventPollsRepo.Default,
    EventViews.Default,
    EventLifecycle.Default,
    EventInputs.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* EventRepo
    const polls = yield* EventPollsRepo
    const views = yield* EventViews
    const lifecycle = yield* EventLifecycle
    const inputs = yield* EventInputs
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Any event of this community, cancelled ones included; other ids do not exist for the caller. */
    const find = (id: number) => foundEvent(repo.findById(id))

    const { requireOwnPolls, resolveCategory } = inputs

    const list = Effect.fn("Events.list")(function*(params: ListEventsParams) {
      const perPage = params.per_page ?? DEFAULT_EVENTS_PER_PAGE
      const rows = yield* repo.listPublic({
        when: params.when ?? "upcoming",
        now: yield* now,
        after: params.cursor,
        limit: perPage + 1,
        categoryId: params.category_id,
        userId: params.user_id,
        search: params.search
      })
      const page = cursorPage(rows, perPage, (last) => encodeCursor([last.start_time.getTime(), last.id]))
      return { data: yield* views.many(page.data), meta: page.meta }
    })

    const get = Effect.fn("Events.get")(function*(id: EventId) {
      return yield* views.detail(yield* find(id))
    })

    const create = Effect.fn("Events.create")(
      function*(input: CreateEvent) {
        const organiser = yield* CommunityMember
        const start = toDate(input.start_time)
        const end = input.end_time === undefined || input.end_time === null ? null : toDate(input.end_time)
        const category = yield* resolveCategory(input.category_id, input.category_name)
        const issues = [
          ...checkTimes({ start, end, startChanged: true, endSent: true }, yield* now),
          ...category.issues,
          ...yield* inputs.groupIssues(input.group_id, organiser)
        ]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        const pollIds = [...new Set(input.poll_ids ?? [])]
        yield* requireOwnPolls(pollIds, organiser.userId)
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(eventInsertOf(input, organiser.userId, { start, end }, category.id ?? null))
          yield* polls.link([row.id], pollIds)
          yield* outbox.append(
            new DomainEvents.CommunityEventCreated({
              event_id: row.id,
              user_id: organiser.userId,
              event: eventSnapshot(row),
              poll_ids: pollIds
            })
          )
          return row
        }))
        return yield* views.one(row)
      },
      requireEventMember
    )

    /**
     * Applies an edit of one event. `options` serve the recurring routes' `single` scope: `before` runs first in the
     * edit's transaction (detaching the occurrence, which then happens even when no field changes) and `outbox`
     * adds to the CommunityEventUpdated payload.
     */
    const applyUpdate = (row: EventRow, input: UpdateEvent, options: UpdateOptions = {}) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        if (row.status === "cancelled") {
          return yield* new EventCancelled({ message: "This event is cancelled and can no longer be edited" })
        }
        const patch: Record<string, unknown> = { ...patchOf(input) }
        const category = yield* resolveCategory(input.category_id, undefined)
        if (input.category_id !== undefined) patch["category_id"] = category.id ?? null
        const start = (patch["start_time"] as Date | undefined) ?? row.start_time
        const end = patch["end_time"] === undefined ? row.end_time : (patch["end_time"] as Date | null)
        const issues = [
          ...checkTimes({
            start,
            end,
            startChanged: start.getTime() !== row.start_time.getTime(),
            endSent: input.end_time !== undefined
          }, yield* now),
          ...category.issues,
          ...(input.group_id === row.group_id ? [] : yield* inputs.groupIssues(input.group_id, editor))
        ]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })

        const id = row.id
        const linked = (yield* polls.byEvents([id])).get(id) ?? []
        const pollIds = input.poll_ids === undefined ? undefined : [...new Set(input.poll_ids)]
        const pollsChanged = pollIds !== undefined && !samePolls(linked, pollIds)
        // Polls already on the event may stay whoever edits; new ones must be the editor's own.
        if (pollsChanged) yield* requireOwnPolls(pollIds.filter((p) => !linked.includes(p)), editor.userId)

        const columns = changedColumns(row, patch as EventPatch)
        const fields = EDITABLE.filter((field) =>
          field === "poll_ids" ? pollsChanged : columns.includes(field as keyof EventPatch)
        )
        if (fields.length === 0 && options.before === undefined) return yield* views.one(row)
        const changes = Object.fromEntries(columns.map((key) => [key, patch[key]])) as EventPatch
        const updated = yield* db.transaction(Effect.gen(function*() {
          if (options.before !== undefined) yield* options.before
          const updated = yield* foundEvent(repo.update(id, changes))
          if (pollsChanged) yield* polls.replace([id], pollIds)
          // Pending reminders follow the start (spec "Event reminder": scheduled_for = start − offset).
          if (columns.includes("start_time")) yield* Effect.provideService(rescheduleReminders(id), TenantSql, db)
          yield* outbox.append(
            new DomainEvents.CommunityEventUpdated({
              event_id: id,
              user_id: updated.user_id,
              changed: NOTIFIED_CHANGES.filter((field) => fields.includes(field)),
              fields,
              updated_by: editor.userId,
              event: eventSnapshot(updated),
              ...options.outbox
            })
          )
          return updated
        }))
        if (columns.some((column) => PLACE_CHANGES.includes(column))) yield* lifecycle.refresh(id)
        return yield* views.one(updated)
      })

    const update = Effect.fn("Events.update")(function*(id: EventId, input: UpdateEvent) {
      const row = yield* find(id)
      return yield* requireEventEditor(row)(applyUpdate(row, input))
    })

    const cancel = Effect.fn("Events.cancel")(function*(id: EventId, payload: CancelEventPayload) {
      const row = yield* find(id)
      const cancelled = yield* requireEventEditor(row)(lifecycle.cancel(row, payload?.reason ?? null))
      return yield* views.one(cancelled)
    })

    const remove = Effect.fn("Events.delete")(function*(id: EventId) {
      const row = yield* find(id)
      return yield* requireEventEditor(row)(lifecycle.remove(row))
    })

    return { list, get, create, update, applyUpdate, cancel, remove, find } as const
  })
}) {}
