import { Schema } from "effect"
import { CursorParam, OffsetPageParams, PerPageParam } from "../http/Cursor.js"
import { PathId, RecordId } from "../http/Ids.js"
import { UserId } from "../identity/User.js"
import { UserSummary } from "../identity/UserSummary.js"
import { CategoryId, CategorySummary } from "../listings/Category.js"
import { PollId } from "../polls/Poll.js"

export const EventId = RecordId.pipe(Schema.brand("EventId"))
export type EventId = typeof EventId.Type

/** Spec: status "includes `cancelled`"; every other event is `active`. */
export const EventStatus = Schema.Literal("active", "cancelled")
export type EventStatus = typeof EventStatus.Type

/** RSVP statuses (spec "RSVP"). */
export const RsvpStatus = Schema.Literal("going", "interested", "not_going", "declined", "invited", "attended")
export type RsvpStatus = typeof RsvpStatus.Type

/** What a member may send to `POST /events/{id}/rsvp`. */
export const RsvpChoice = Schema.Literal("going", "interested", "not_going", "declined")
export type RsvpChoice = typeof RsvpChoice.Type

export const RsvpCounts = Schema.Struct({ going: Schema.Int, interested: Schema.Int, waitlist: Schema.Int })
export type RsvpCounts = typeof RsvpCounts.Type

/** Spec "Recurrence rule" frequencies (`custom`: an RFC 5545 RRULE). */
export const RecurrenceFrequency = Schema.Literal("daily", "weekly", "monthly", "yearly", "custom")
export type RecurrenceFrequency = typeof RecurrenceFrequency.Type

/** One date of a recurring series, as the detail lists them. */
export class SeriesOccurrence extends Schema.Class<SeriesOccurrence>("SeriesOccurrence")({
  id: EventId,
  start_time: Schema.DateTimeUtc,
  end_time: Schema.NullOr(Schema.DateTimeUtc),
  occurrence_date: Schema.NullOr(Schema.String).annotations({ description: "`YYYY-MM-DD`" })
}) {}

/** An event as members see it (spec "Event"); `my_rsvp` and `my_waitlist_position` only with a token. */
export class Event extends Schema.Class<Event>("Event")({
  id: EventId,
  title: Schema.String,
  description: Schema.String,
  start_time: Schema.DateTimeUtc,
  end_time: Schema.NullOr(Schema.DateTimeUtc),
  location: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  max_attendees: Schema.NullOr(Schema.Int).annotations({ description: "null: no capacity limit" }),
  is_online: Schema.Boolean,
  online_link: Schema.NullOr(Schema.String),
  video_url: Schema.NullOr(Schema.String),
  allow_remote_attendance: Schema.Boolean,
  image_url: Schema.NullOr(Schema.String),
  cover_image: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(CategoryId),
  category: Schema.NullOr(CategorySummary),
  group_id: Schema.NullOr(RecordId),
  federated_visibility: Schema.String,
  members_only: Schema.Boolean,
  status: EventStatus,
  cancel_reason: Schema.NullOr(Schema.String),
  is_recurring_template: Schema.Boolean,
  parent_event_id: Schema.NullOr(EventId),
  occurrence_date: Schema.NullOr(Schema.String),
  series_id: Schema.NullOr(RecordId).annotations({ description: "The standalone series the event is linked to" }),
  is_series: Schema.Boolean.annotations({
    description: "A recurring template or one of its occurrences (a list shows the series as this one card)"
  }),
  series_count: Schema.NullOr(Schema.Int).annotations({
    description: "Occurrences of the recurring series that are not cancelled, past ones included; null outside one"
  }),
  recurrence_frequency: Schema.NullOr(RecurrenceFrequency).annotations({
    description: "The series' recurrence rule frequency; null outside a recurring series"
  }),
  series_occurrences: Schema.optionalWith(Schema.Array(SeriesOccurrence), { exact: true }).annotations({
    description:
      "Detail of a recurring series only: up to 50 upcoming occurrences that are not cancelled, soonest first"
  }),
  poll_ids: Schema.Array(PollId),
  user_id: UserId,
  organiser: UserSummary,
  counts: RsvpCounts,
  my_rsvp: Schema.optional(Schema.NullOr(RsvpStatus)),
  my_waitlist_position: Schema.optional(Schema.NullOr(Schema.Int)),
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

export const EventTitle = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "is required" }),
  Schema.maxLength(255, { message: () => "must be at most 255 characters" })
)
export const EventDescription = Schema.Trim.pipe(
  Schema.minLength(1, { message: () => "is required" }),
  Schema.maxLength(20_000)
)
const Text = (max: number) => Schema.Trim.pipe(Schema.maxLength(max))
const Latitude = Schema.Number.pipe(Schema.between(-90, 90))
const Longitude = Schema.Number.pipe(Schema.between(-180, 180))
const Capacity = Schema.Int.pipe(Schema.between(1, 100_000))
const UrlText = Schema.Trim.pipe(
  Schema.maxLength(2000),
  Schema.filter((value) => {
    try {
      const url = new URL(value)
      return url.protocol === "http:" || url.protocol === "https:"
    } catch {
      return false
    }
  }, { message: () => "must be an http(s) URL", jsonSchema: { format: "uri" } })
)

/** The last instant an event may touch: four-digit years, which every calendar format and client can write. */
export const LATEST_EVENT_TIME = "9999-12-31T23:59:59Z"

/** A start or end an event may have (any offset in, UTC out), up to {@link LATEST_EVENT_TIME}. */
export const EventTime = Schema.DateTimeUtc.pipe(
  Schema.filter((t) => t.epochMillis <= Date.parse(LATEST_EVENT_TIME), {
    message: () => `must not be after ${LATEST_EVENT_TIME}`,
    jsonSchema: { format: "date-time" }
  })
)

/** The fields `PUT /events/{id}` may change (spec "Events"), all optional there; `null` clears an optional one. */
const editableFields = {
  title: EventTitle,
  description: EventDescription,
  start_time: EventTime,
  end_time: Schema.NullOr(EventTime),
  location: Schema.NullOr(Text(255)),
  latitude: Schema.NullOr(Latitude),
  longitude: Schema.NullOr(Longitude),
  category_id: Schema.NullOr(RecordId),
  group_id: Schema.NullOr(RecordId),
  max_attendees: Schema.NullOr(Capacity),
  is_online: Schema.Boolean,
  online_link: Schema.NullOr(UrlText),
  image_url: Schema.NullOr(UrlText),
  federated_visibility: Text(50).pipe(Schema.minLength(1)),
  allow_remote_attendance: Schema.Boolean,
  video_url: Schema.NullOr(UrlText),
  poll_ids: Schema.Array(RecordId).pipe(Schema.maxItems(20))
}

/** `POST /api/v2/events`: title, description and start_time required; `category_name` is a category slug. */
export const CreateEvent = Schema.Struct({
  title: EventTitle,
  description: EventDescription,
  start_time: EventTime,
  end_time: exact(editableFields.end_time),
  location: exact(editableFields.location),
  latitude: exact(editableFields.latitude),
  longitude: exact(editableFields.longitude),
  max_attendees: exact(editableFields.max_attendees),
  is_online: exact(editableFields.is_online),
  online_link: exact(editableFields.online_link),
  video_url: exact(editableFields.video_url),
  allow_remote_attendance: exact(editableFields.allow_remote_attendance),
  image_url: exact(editableFields.image_url),
  category_id: exact(editableFields.category_id),
  category_name: exact(Text(100).pipe(Schema.minLength(1))).annotations({
    description: "Slug of an `event` category (instead of category_id)"
  }),
  group_id: exact(editableFields.group_id),
  federated_visibility: exact(editableFields.federated_visibility).annotations({ description: "Default `none`" }),
  members_only: exact(Schema.Boolean),
  poll_ids: exact(editableFields.poll_ids).annotations({ description: "Polls the caller owns" })
})
export type CreateEvent = typeof CreateEvent.Type

export const UpdateEvent = Schema.Struct({
  title: exact(editableFields.title),
  description: exact(editableFields.description),
  start_time: exact(editableFields.start_time),
  end_time: exact(editableFields.end_time),
  location: exact(editableFields.location),
  latitude: exact(editableFields.latitude),
  longitude: exact(editableFields.longitude),
  category_id: exact(editableFields.category_id),
  group_id: exact(editableFields.group_id),
  max_attendees: exact(editableFields.max_attendees),
  is_online: exact(editableFields.is_online),
  online_link: exact(editableFields.online_link),
  image_url: exact(editableFields.image_url),
  federated_visibility: exact(editableFields.federated_visibility),
  allow_remote_attendance: exact(editableFields.allow_remote_attendance),
  video_url: exact(editableFields.video_url),
  poll_ids: exact(editableFields.poll_ids)
})
export type UpdateEvent = typeof UpdateEvent.Type

export const EventIdPath = Schema.Struct({ id: PathId(EventId) })

export const EventWhen = Schema.Literal("upcoming", "past")
export type EventWhen = typeof EventWhen.Type

/** Cursor of the event lists: the last card's start time (epoch ms) and id. */
export const EventCursor = Schema.Tuple(Schema.Int, RecordId)
export type EventCursor = typeof EventCursor.Type

const IdParam = Schema.NumberFromString.pipe(Schema.compose(RecordId))
const SearchParam = Schema.Trim.pipe(Schema.maxLength(200))
const searchDescription = { description: "Part of the title or description (case-insensitive)" }

/** `GET /api/v2/events`. */
export const ListEventsParams = Schema.Struct({
  when: Schema.optional(EventWhen).annotations({ description: "Default `upcoming`" }),
  cursor: Schema.optional(CursorParam(EventCursor)),
  per_page: Schema.optional(PerPageParam(50)).annotations({ description: "Default 20" }),
  category_id: Schema.optional(IdParam).annotations({ description: "Only events of this category" }),
  user_id: Schema.optional(IdParam).annotations({ description: "Only this organiser's events" }),
  search: Schema.optional(SearchParam).annotations(searchDescription)
})
export type ListEventsParams = typeof ListEventsParams.Type

/** `GET /api/v2/admin/events`. */
export const AdminListEventsParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(EventStatus).annotations({ description: "Only events with this status" }),
  when: Schema.optional(EventWhen).annotations({ description: "Only events that have not ended, or only past ones" }),
  user_id: Schema.optional(IdParam).annotations({ description: "Organiser" }),
  search: Schema.optional(SearchParam).annotations(searchDescription)
})
export type AdminListEventsParams = typeof AdminListEventsParams.Type

export const CancelEvent = Schema.Struct({ reason: exact(Schema.NullOr(Text(1000))) })
export type CancelEvent = typeof CancelEvent.Type

/** The body of a cancel: `{"reason": ...}`, `{}`, or none at all (an empty body arrives as `null`). */
export const CancelEventPayload = Schema.Union(CancelEvent, Schema.Null).annotations({
  description: "Optional; `reason` is shown to the people who are notified"
})
export type CancelEventPayload = typeof CancelEventPayload.Type

export const EventDeleted = Schema.Struct({ id: EventId, deleted: Schema.Literal(true) })
export type EventDeleted = typeof EventDeleted.Type
