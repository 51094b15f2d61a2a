import {
  type CancelEventPayload,
  type CreateEvent,
  type CurrentTenant,
  cursorPage,
  encodeCursor,
  EventCancelled,
  type EventId,
  type ListEventsParams,
  UpdateEvent,
  ValidationFailed,
  type ValidationIssue
} from "@timebank/domain"
import { Array as Arr, Clock, DateTime, Effect, Option } from "effect"
import { CommunityMember } from "../identity/Policy.js"
import { requireFeature } from "../platform/FeatureGate.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EventInputs, eventInsertOf } from "./EventInputs.js"
import { EventLifecycle, eventNotFound } from "./EventLifecycle.js"
import { type EventPatch, EventRepo, type EventRow } from "./EventRepo.js"
import { eventSnapshot } from "./EventSnapshot.js"
import { EventEditor, requireEventEditor, requireEventMember } from "./EventsPolicy.js"
import { EventViews } from "./EventViews.js"
import { rescheduleReminders } from "./ReminderRepo.js"

/** Page size of the event list when the caller names none (max 50, in the contract). */
export const DEFAULT_EVENTS_PER_PAGE = 20

/** Edits that members going or interested hear about (spec "Event-related notifications"). */
export const NOTIFIED_CHANGES = ["title", "start_time", "end_time", "location"] as const

/** The editable fields in the contract's order, so that `fields` of CommunityEventUpdated reads the same each time. */
const EDITABLE: ReadonlyArray<string> = Object.keys(UpdateEvent.fields)

/** Edits after which the event's entity must look again: capacity, and times (an event may end or reopen). */
const PLACE_CHANGES = ["max_attendees", "start_time", "end_time"]

export const gateEvents = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("events"), effect)

const toDate = (value: DateTime.Utc) => DateTime.toDate(value)

/** Whether a column value and a sent value are the same (dates by instant, ids as numbers). */
const same = (current: unknown, next: unknown) => {
  if (current instanceof Date && next instanceof Date) return current.getTime() === next.getTime()
  if (typeof current === "string" && typeof next === "number") return Number(current) === next
  return current === next
}

/** The columns of `row` that `patch` really changes, in the patch's order. */
export const changedColumns = (row: EventRow, patch: EventPatch): ReadonlyArray<keyof EventPatch> =>
  (Object.keys(patch) as Array<keyof EventPatch>).filter((key) => !same(row[key], patch[key]))

const samePolls = (a: ReadonlyArray<number>, b: ReadonlyArray<number>) => {
  const bs = new Set(b)
  return a.length === bs.size && a.every((id) => bs.has(id))
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

/** Extra steps of an edit made through the recurring routes (see `applyUpdate`). */
export interface UpdateOptions {
  readonly before?: Effect.Effect<void, never, CurrentTenant>
  readonly outbox?: Readonly<Record<string, unknown>>
}

/** Community events (spec "Events"), gated on the `events` feature. */
export class EventsService extends Effect.Service<EventsService>()("EventsService", {
  dependencies: [
    EventRepo.Default,
    EventViews.Default,
    EventLifecycle.Default,
    EventInputs.Default,
    Outbox.Default,
    TenantSql.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const repo = yield* EventRepo
    const views = yield* EventViews
    const lifecycle = yield* EventLifecycle
    const inputs = yield* EventInputs
    const outbox = yield* Outbox
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    /** Any event of this community, cancelled ones included; other ids do not exist for the caller. */
    const find = (id: number) =>
      Effect.flatMap(
        repo.findById(id),
        Option.match({ onNone: () => Effect.fail(eventNotFound()), onSome: Effect.succeed })
      )

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
      const page = cursorPage(rows, perPage, (last) => encodeCursor([last.start_time.getTime(), Number(last.id)]))
      return { data: yield* views.many(page.data), meta: page.meta }
    }, gateEvents)

    const get = Effect.fn("Events.get")(function*(id: EventId) {
      return yield* views.detail(yield* find(id))
    }, gateEvents)

    const create = Effect.fn("Events.create")(
      function*(input: CreateEvent) {
        const organiser = yield* CommunityMember
        const start = toDate(input.start_time)
        const end = input.end_time === undefined || input.end_time === null ? null : toDate(input.end_time)
        const category = yield* resolveCategory(input.category_id, input.category_name)
        const issues = [
          ...checkTimes({ start, end, startChanged: true, endSent: true }, yield* now),
          ...category.issues
        ]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })
        const pollIds = [...new Set(input.poll_ids ?? [])]
        yield* requireOwnPolls(pollIds, organiser.userId)
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* repo.insert(eventInsertOf(input, organiser.userId, { start, end }, category.id ?? null))
          if (pollIds.length > 0) yield* repo.setPolls(Number(row.id), pollIds)
          yield* outbox.append("CommunityEventCreated", {
            event_id: Number(row.id),
            user_id: organiser.userId,
            event: eventSnapshot(row),
            poll_ids: pollIds
          })
          return row
        }))
        return yield* views.one(row)
      },
      requireEventMember,
      gateEvents
    )

    /** The columns an edit sends, as the database holds them. */
    const patchOf = (input: UpdateEvent): EventPatch => {
      const { category_id: _category, end_time, poll_ids: _polls, start_time, ...plain } = input
      return {
        ...plain,
        ...(start_time === undefined ? {} : { start_time: toDate(start_time) }),
        ...(end_time === undefined ? {} : { end_time: end_time === null ? null : toDate(end_time) })
      }
    }

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
          ...category.issues
        ]
        if (Arr.isNonEmptyArray(issues)) return yield* new ValidationFailed({ issues })

        const id = Number(row.id)
        const linked = (yield* repo.pollIds([id])).get(id) ?? []
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
          const updated = yield* Effect.flatMap(
            repo.update(id, changes),
            Option.match({ onNone: () => Effect.fail(eventNotFound()), onSome: Effect.succeed })
          )
          if (pollsChanged) yield* repo.setPolls(id, pollIds)
          // Pending reminders follow the start (spec "Event reminder": scheduled_for = start − offset).
          if (columns.includes("start_time")) yield* Effect.provideService(rescheduleReminders(id), TenantSql, db)
          yield* outbox.append("CommunityEventUpdated", {
            event_id: id,
            user_id: Number(updated.user_id),
            changed: NOTIFIED_CHANGES.filter((field) => fields.includes(field)),
            fields,
            updated_by: editor.userId,
            event: eventSnapshot(updated),
            ...options.outbox
          })
          return updated
        }))
        if (columns.some((column) => PLACE_CHANGES.includes(column))) yield* lifecycle.refresh(id)
        return yield* views.one(updated)
      })

    const update = Effect.fn("Events.update")(function*(id: EventId, input: UpdateEvent) {
      const row = yield* find(id)
      return yield* requireEventEditor(row)(applyUpdate(row, input))
    }, gateEvents)

    const cancel = Effect.fn("Events.cancel")(function*(id: EventId, payload: CancelEventPayload) {
      const row = yield* find(id)
      const cancelled = yield* requireEventEditor(row)(lifecycle.cancel(row, payload?.reason ?? null))
      return yield* views.one(cancelled)
    }, gateEvents)

    const remove = Effect.fn("Events.delete")(function*(id: EventId) {
      const row = yield* find(id)
      return yield* requireEventEditor(row)(lifecycle.remove(row))
    }, gateEvents)

    return { list, get, create, update, applyUpdate, cancel, remove, find } as const
  })
}) {}
