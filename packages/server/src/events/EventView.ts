import {
  type CategorySummary,
  Event,
  type PollId,
  type RsvpCounts,
  SeriesOccurrence,
  type UserId,
  type UserSummary
} from "@timebank/domain"
import { DateTime } from "effect"
import { type EventRow, storedFields } from "./EventRow.js"
import type { OccurrenceDate, SeriesSummary } from "./recurrence/OccurrenceRepo.js"
import type { ViewerStatus } from "./rsvp/AttendeesRepo.js"

/** What an event's view shows beyond its row, read for a whole page at once (EventViews). */
export interface EventRelated {
  readonly organiser: UserSummary | undefined
  readonly category: CategorySummary | undefined
  readonly counts: RsvpCounts | undefined
  readonly pollIds: ReadonlyArray<number> | undefined
  /** The recurring series it belongs to (undefined outside one). */
  readonly series: Pick<SeriesSummary, "frequency" | "count"> | undefined
  /** The caller's own answer; undefined when nobody is signed in. */
  readonly own: ViewerStatus | undefined
}

/** Shown for an organiser the users table no longer answers for (it keeps erased users, so this should not happen). */
const unknownOrganiser = (id: number): UserSummary => ({
  id: id as UserId,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

const noCounts: RsvpCounts = { going: 0, interested: 0, waitlist: 0 }

const utc = (date: Date) => DateTime.unsafeFromDate(date)

/** One date of a series as the detail and the recurring create answer show it. */
export const seriesOccurrenceOf = (o: OccurrenceDate) =>
  SeriesOccurrence.make({
    id: o.id,
    start_time: utc(o.start_time),
    end_time: o.end_time === null ? null : utc(o.end_time),
    occurrence_date: o.occurrence_date
  })

/** The API's view of an event: the one read shape of lists, details and write answers. */
export const eventView = (row: EventRow, related: EventRelated): Event =>
  Event.make({
    id: row.id,
    ...storedFields(row),
    start_time: utc(row.start_time),
    end_time: row.end_time === null ? null : utc(row.end_time),
    category_id: related.category?.id ?? null,
    category: related.category ?? null,
    is_series: related.series !== undefined,
    series_count: related.series?.count ?? null,
    recurrence_frequency: related.series?.frequency ?? null,
    poll_ids: (related.pollIds ?? []) as ReadonlyArray<PollId>,
    user_id: row.user_id,
    organiser: related.organiser ?? unknownOrganiser(row.user_id),
    counts: related.counts ?? noCounts,
    ...(related.own === undefined ? {} : { my_rsvp: related.own.rsvp, my_waitlist_position: related.own.position }),
    created_at: utc(row.created_at),
    updated_at: utc(row.updated_at)
  })
