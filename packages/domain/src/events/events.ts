import { Schema } from "effect"

/**
 * A community event as domain events carry it: subscribers (notifications, federation) get what they need without
 * reading a row that may be gone by the time they run (a delete). Times are ISO strings, `occurrence_date`
 * `YYYY-MM-DD`.
 */
export const CommunityEventSnapshot = Schema.Struct({
  id: Schema.Number,
  user_id: Schema.Number,
  title: Schema.String,
  description: Schema.String,
  start_time: Schema.String,
  end_time: Schema.NullOr(Schema.String),
  location: Schema.NullOr(Schema.String),
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  max_attendees: Schema.NullOr(Schema.Number),
  is_online: Schema.Boolean,
  online_link: Schema.NullOr(Schema.String),
  video_url: Schema.NullOr(Schema.String),
  allow_remote_attendance: Schema.Boolean,
  image_url: Schema.NullOr(Schema.String),
  cover_image: Schema.NullOr(Schema.String),
  category_id: Schema.NullOr(Schema.Number),
  group_id: Schema.NullOr(Schema.Number),
  federated_visibility: Schema.String,
  members_only: Schema.Boolean,
  status: Schema.String,
  cancel_reason: Schema.NullOr(Schema.String),
  is_recurring_template: Schema.Boolean,
  parent_event_id: Schema.NullOr(Schema.Number),
  occurrence_date: Schema.NullOr(Schema.String),
  series_id: Schema.NullOr(Schema.Number)
})
export type CommunityEventSnapshot = typeof CommunityEventSnapshot.Type

/** A single event, or a recurring template with its occurrences (`occurrence_count`, `occurrence_ids`). */
export class CommunityEventCreated extends Schema.TaggedClass<CommunityEventCreated>()("CommunityEventCreated", {
  event_id: Schema.Number,
  user_id: Schema.Number,
  event: CommunityEventSnapshot,
  poll_ids: Schema.Array(Schema.Number),
  occurrence_count: Schema.optionalWith(Schema.Number, { exact: true }),
  occurrence_ids: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true })
}) {}

/**
 * An edit. `changed` names what attendees are told about (title, times, place), `fields` every field sent. The
 * optional keys depend on the edit: a series edit (`scope` "all", `event_ids`), an edit of one occurrence that
 * detaches it (`scope` "single", `event_ids`, `detached_from`), a new cover (`title`, `cover_image`, `event_ids`,
 * no `event`), a series link (`previous_series_id`).
 */
export class CommunityEventUpdated extends Schema.TaggedClass<CommunityEventUpdated>()("CommunityEventUpdated", {
  event_id: Schema.Number,
  user_id: Schema.Number,
  changed: Schema.Array(Schema.String),
  fields: Schema.Array(Schema.String),
  updated_by: Schema.Number,
  event: Schema.optionalWith(CommunityEventSnapshot, { exact: true }),
  title: Schema.optionalWith(Schema.String, { exact: true }),
  cover_image: Schema.optionalWith(Schema.String, { exact: true }),
  scope: Schema.optionalWith(Schema.Literal("single", "all"), { exact: true }),
  event_ids: Schema.optionalWith(Schema.Array(Schema.Number), { exact: true }),
  detached_from: Schema.optionalWith(Schema.Number, { exact: true }),
  previous_series_id: Schema.optionalWith(Schema.NullOr(Schema.Number), { exact: true })
}) {}

/** `recipients`: members going, interested, invited or waiting across the event and its cancelled occurrences. */
export class EventCancelled extends Schema.TaggedClass<EventCancelled>()("EventCancelled", {
  event_id: Schema.Number,
  user_id: Schema.Number,
  event: CommunityEventSnapshot,
  reason: Schema.NullOr(Schema.String),
  cancelled_by: Schema.Number,
  cancelled_occurrence_ids: Schema.Array(Schema.Number),
  recipients: Schema.Array(Schema.Number)
}) {}

export class EventDeleted extends Schema.TaggedClass<EventDeleted>()("EventDeleted", {
  event_id: Schema.Number,
  user_id: Schema.Number,
  event: CommunityEventSnapshot,
  deleted_by: Schema.Number,
  deleted_occurrence_ids: Schema.Array(Schema.Number),
  detached_occurrence_ids: Schema.Array(Schema.Number),
  recipients: Schema.Array(Schema.Number)
}) {}

export class EventSeriesCreated extends Schema.TaggedClass<EventSeriesCreated>()("EventSeriesCreated", {
  series_id: Schema.Number,
  user_id: Schema.Number,
  title: Schema.String
}) {}

/** The event a change of places is about, as RsvpChanged, WaitlistPromoted and CheckedIn carry it. */
const placesAbout = {
  event_id: Schema.Number,
  event_title: Schema.String,
  organiser_id: Schema.Number
}

/** A real change of a member's RSVP status (`from` null: they had none; `to` null: it was removed). */
export class RsvpChanged extends Schema.TaggedClass<RsvpChanged>()("RsvpChanged", {
  ...placesAbout,
  user_id: Schema.Number,
  from: Schema.NullOr(Schema.String),
  to: Schema.NullOr(Schema.String)
}) {}

export class WaitlistPromoted extends Schema.TaggedClass<WaitlistPromoted>()("WaitlistPromoted", {
  ...placesAbout,
  user_id: Schema.Number
}) {}

/** `hours` credited by `transaction_id`. */
export class CheckedIn extends Schema.TaggedClass<CheckedIn>()("CheckedIn", {
  ...placesAbout,
  user_id: Schema.Number,
  hours: Schema.Number,
  transaction_id: Schema.Number,
  checked_in_by: Schema.Number
}) {}

/** A reminder to send now: a member's own (`kind` "user", with `reminder_id`) or an automatic one. */
export class EventReminderDue extends Schema.TaggedClass<EventReminderDue>()("EventReminderDue", {
  event_id: Schema.Number,
  user_id: Schema.Number,
  kind: Schema.Literal("user", "auto_24h", "auto_1h"),
  reminder_id: Schema.NullOr(Schema.Number),
  delivery_id: Schema.Number,
  channel: Schema.NullOr(Schema.String),
  offset_minutes: Schema.NullOr(Schema.Number),
  event: CommunityEventSnapshot
}) {}
