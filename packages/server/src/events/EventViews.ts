import { CurrentUser, Event } from "@timebank/domain"
import { Clock, Effect, Option } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { CategoryDirectory } from "../listings/CategoryDirectory.js"
import { EventPollsRepo } from "./EventPollsRepo.js"
import { type EventRow, templateIdOf } from "./EventRow.js"
import { eventView, seriesOccurrenceOf } from "./EventView.js"
import { OccurrenceRepo } from "./recurrence/OccurrenceRepo.js"
import { AttendeesRepo, type ViewerStatus } from "./rsvp/AttendeesRepo.js"

const noAnswer: ViewerStatus = { rsvp: null, position: null }
const noSeries = { frequency: null, count: 0 }

/**
 * Turns event rows into the API's view: organisers, categories, RSVP counts, poll ids and — for a signed-in
 * caller — their own RSVP and waitlist place. One query per relation for the whole page, side by side, never one
 * per event.
 */
export class EventViews extends Effect.Service<EventViews>()("EventViews", {
  dependencies: [
    AttendeesRepo.Default,
    EventPollsRepo.Default,
    OccurrenceRepo.Default,
    UserSummaries.Default,
    CategoryDirectory.Default
  ],
  effect: Effect.gen(function*() {
    const attendees = yield* AttendeesRepo
    const polls = yield* EventPollsRepo
    const occurrences = yield* OccurrenceRepo
    const users = yield* UserSummaries
    const categories = yield* CategoryDirectory

    const many = (rows: ReadonlyArray<EventRow>) =>
      Effect.gen(function*() {
        if (rows.length === 0) return []
        const viewer = yield* Effect.serviceOption(CurrentUser)
        const ids = rows.map((r) => r.id)
        const templates = [...new Set(rows.map(templateIdOf).filter((id): id is number => id !== null))]
        const related = yield* Effect.all({
          organisers: users.byIds(rows.map((r) => r.user_id)),
          categories: categories.summaries(rows.flatMap((r) => (r.category_id === null ? [] : [r.category_id]))),
          counts: attendees.counts(ids),
          polls: polls.byEvents(ids),
          series: occurrences.summaries(templates),
          mine: Option.match(viewer, {
            onNone: () => Effect.succeed<ReadonlyMap<number, ViewerStatus> | null>(null),
            onSome: (actor) => attendees.viewerStatus(ids, actor.userId)
          })
        }, { concurrency: "unbounded" })
        return rows.map((row) => {
          const template = templateIdOf(row)
          return eventView(row, {
            organiser: related.organisers.get(row.user_id),
            category: row.category_id === null ? undefined : related.categories.get(row.category_id),
            counts: related.counts.get(row.id),
            pollIds: related.polls.get(row.id),
            series: template === null ? undefined : related.series.get(template) ?? noSeries,
            own: related.mine === null ? undefined : related.mine.get(row.id) ?? noAnswer
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
        const [view, upcoming] = yield* Effect.all([one(row), occurrences.upcoming(template, now)], {
          concurrency: 2
        })
        return Event.make({ ...view, series_occurrences: upcoming.map(seriesOccurrenceOf) })
      })

    return { many, one, detail } as const
  })
}) {}
