import {
  type CategoryId,
  CurrentUser,
  Event,
  type EventId,
  type PollId,
  type RsvpCounts,
  SeriesOccurrence,
  type UserId,
  type UserSummary
} from "@timebank/domain"
import { Clock, DateTime, Effect, Option } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { CategoryRepo, toCategorySummary } from "../listings/CategoryRepo.js"
import { EventRepo, type EventRow, type SeriesSummary, type ViewerStatus } from "./EventRepo.js"

/** Shown for an organiser the users table no longer answers for (it keeps erased users, so this should not happen). */
const unknownOrganiser = (id: number): UserSummary => ({
  id: id as UserId,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

const noCounts: RsvpCounts = { going: 0, interested: 0, waitlist: 0 }
const noAnswer: ViewerStatus = { rsvp: null, position: null }

/** One date of a series as the detail and the recurring create answer show it. */
export const seriesOccurrenceOf = (o: {
  readonly id: string | number
  readonly start_time: Date
  readonly end_time: Date | null
  readonly occurrence_date: string | null
}) =>
  SeriesOccurrence.make({
    id: Number(o.id) as EventId,
    start_time: DateTime.unsafeFromDate(o.start_time),
    end_time: o.end_time === null ? null : DateTime.unsafeFromDate(o.end_time),
    occurrence_date: o.occurrence_date
  })

const optionalId = (value: string | null) => (value === null ? null : Number(value))

/** The recurring template an event belongs to: itself for a template, its parent for an occurrence, else none. */
export const templateIdOf = (row: Pick<EventRow, "id" | "is_recurring_template" | "parent_event_id">) =>
  row.is_recurring_template ? Number(row.id) : optionalId(row.parent_event_id)

/**
 * Turns event rows into the API's view: organisers, categories, RSVP counts, poll ids and — for a signed-in
 * caller — their own RSVP and waitlist place. One query per relation for the whole page, side by side, never one
 * per event.
 */
export class EventViews extends Effect.Service<EventViews>()("EventViews", {
  dependencies: [EventRepo.Default, UserSummaries.Default, CategoryRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* EventRepo
    const users = yield* UserSummaries
    const categories = yield* CategoryRepo

    const many = (rows: ReadonlyArray<EventRow>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return []
        const viewer = yield* Effect.serviceOption(CurrentUser)
        const ids = rows.map((r) => Number(r.id))
        const related = yield* Effect.all({
          organisers: users.byIds(rows.map((r) => Number(r.user_id))),
          cats: categories.byIds(rows.flatMap((r) => (r.category_id === null ? [] : [Number(r.category_id)]))),
          counts: repo.counts(ids),
          polls: repo.pollIds(ids),
          series: repo.seriesSummaries([
            ...new Set(rows.flatMap((r) => {
              const template = templateIdOf(r)
              return template === null ? [] : [template]
            }))
          ]),
          mine: Option.match(viewer, {
            onNone: () => Effect.succeed<ReadonlyMap<number, ViewerStatus> | null>(null),
            onSome: (actor) => repo.viewerStatus(ids, actor.userId)
          })
        }, { concurrency: "unbounded" })
        return rows.map((row) => {
          const id = Number(row.id)
          const organiserId = Number(row.user_id)
          const category = row.category_id === null ? undefined : related.cats.get(Number(row.category_id))
          const own = related.mine === null ? undefined : related.mine.get(id) ?? noAnswer
          const template = templateIdOf(row)
          const series: SeriesSummary | undefined = template === null
            ? undefined
            : related.series.get(template) ?? { frequency: null, count: 0 }
          return Event.make({
            id: id as EventId,
            title: row.title,
            description: row.description,
            start_time: DateTime.unsafeFromDate(row.start_time),
            end_time: row.end_time === null ? null : DateTime.unsafeFromDate(row.end_time),
            location: row.location,
            latitude: row.latitude,
            longitude: row.longitude,
            max_attendees: row.max_attendees,
            is_online: row.is_online,
            online_link: row.online_link,
            video_url: row.video_url,
            allow_remote_attendance: row.allow_remote_attendance,
            image_url: row.image_url,
            cover_image: row.cover_image,
            category_id: category === undefined ? null : (Number(category.id) as CategoryId),
            category: category === undefined ? null : toCategorySummary(category),
            group_id: optionalId(row.group_id),
            federated_visibility: row.federated_visibility,
            members_only: row.members_only,
            status: row.status,
            cancel_reason: row.cancel_reason,
            is_recurring_template: row.is_recurring_template,
            parent_event_id: optionalId(row.parent_event_id) as EventId | null,
            occurrence_date: row.occurrence_date,
            series_id: optionalId(row.series_id),
            is_series: series !== undefined,
            series_count: series?.count ?? null,
            recurrence_frequency: series?.frequency ?? null,
            poll_ids: (related.polls.get(id) ?? []) as ReadonlyArray<PollId>,
            user_id: organiserId as UserId,
            organiser: related.organisers.get(organiserId) ?? unknownOrganiser(organiserId),
            counts: related.counts.get(id) ?? noCounts,
            ...(own === undefined ? {} : { my_rsvp: own.rsvp, my_waitlist_position: own.position }),
            created_at: DateTime.unsafeFromDate(row.created_at),
            updated_at: DateTime.unsafeFromDate(row.updated_at)
          })
        })
      }).pipe(Effect.withSpan("EventViews.many", { attributes: { count: rows.length } }))

    const one = (row: EventRow) => Effect.map(many([row]), (views) => views[0]!)

    /** The detail: the view, and for a recurring series its upcoming dates (one more query). */
    const detail = (row: EventRow) =>
      Effect.gen(function*() {
        const template = templateIdOf(row)
        if (template === null) return yield* one(row)
        const now = new Date(yield* Clock.currentTimeMillis)
        const [view, occurrences] = yield* Effect.all([one(row), repo.upcomingOccurrences(template, now)], {
          concurrency: 2
        })
        return Event.make({
          ...view,
          series_occurrences: occurrences.map(seriesOccurrenceOf)
        })
      })

    return { many, one, detail } as const
  })
}) {}
