import {
  type CreateEventSeries,
  DomainEvents,
  EventCancelled,
  type EventId,
  EventSeries,
  type EventSeriesId,
  Forbidden,
  type LinkEventSeries,
  type UserId,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { Outbox } from "../../platform/Outbox.js"
import { CommunityMember, isTenantAdmin } from "../../platform/Policy.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { foundEvent } from "../EventLifecycle.js"
import { EventRepo } from "../EventRepo.js"
import { eventSnapshot } from "../EventSnapshot.js"
import { EventEditor, requireEventEditor, requireEventMember } from "../EventsPolicy.js"
import { EventViews } from "../EventViews.js"
import { SeriesRepo, type SeriesRow } from "./SeriesRepo.js"

export const toEventSeries = (row: SeriesRow) =>
  EventSeries.make({
    id: row.id as EventSeriesId,
    title: row.title,
    description: row.description,
    user_id: row.user_id as UserId,
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** Standalone series (spec `POST /v2/events/series`, `POST /v2/events/{id}/series`), gated on `events`. */
export class SeriesService extends Effect.Service<SeriesService>()("SeriesService", {
  dependencies: [SeriesRepo.Default, EventRepo.Default, EventViews.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const series = yield* SeriesRepo
    const events = yield* EventRepo
    const views = yield* EventViews
    const outbox = yield* Outbox

    const create = Effect.fn("EventSeries.create")(
      function*(input: CreateEventSeries) {
        const member = yield* CommunityMember
        const row = yield* db.transaction(Effect.gen(function*() {
          const row = yield* series.insert(member.userId, input.title, input.description ?? null)
          yield* outbox.append(
            new DomainEvents.EventSeriesCreated({ series_id: row.id, user_id: member.userId, title: row.title })
          )
          return row
        }))
        return toEventSeries(row)
      },
      requireEventMember
    )

    /** The series an event may join: one of this community (else 422) that the editor created or may manage. */
    const usableSeries = (seriesId: number) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const row = yield* series.findById(seriesId)
        if (Option.isNone(row)) {
          return yield* ValidationFailed.field("series_id", "is not a series of this community")
        }
        if (row.value.user_id !== editor.userId && !isTenantAdmin(editor)) {
          return yield* new Forbidden({
            message: "Only its creator or a community admin may add events to this series",
            field: "series_id"
          })
        }
        return row.value
      })

    const applyLink = (id: number, current: number | null, seriesId: number | null) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        if (seriesId !== null) yield* usableSeries(seriesId)
        const row = yield* db.transaction(Effect.gen(function*() {
          const updated = yield* foundEvent(events.setSeries(id, seriesId))
          yield* outbox.append(
            new DomainEvents.CommunityEventUpdated({
              event_id: id,
              user_id: updated.user_id,
              changed: [],
              fields: ["series_id"],
              updated_by: editor.userId,
              previous_series_id: current,
              event: eventSnapshot(updated)
            })
          )
          return updated
        }))
        return yield* views.one(row)
      })

    const link = Effect.fn("EventSeries.link")(function*(id: EventId, input: LinkEventSeries) {
      const row = yield* foundEvent(events.findById(id))
      return yield* requireEventEditor(row)(
        Effect.gen(function*() {
          if (row.status === "cancelled") {
            return yield* new EventCancelled({ message: "This event is cancelled and can no longer be edited" })
          }
          // Sending the series it already has changes nothing and tells nobody.
          if (row.series_id === input.series_id) return yield* views.one(row)
          return yield* applyLink(row.id, row.series_id, input.series_id)
        })
      )
    })

    return { create, link } as const
  })
}) {}
