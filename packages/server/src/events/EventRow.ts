import { CategoryId, EventId, EventSeriesId, EventStatus, UserId } from "@timebank/domain"
import { Schema } from "effect"
import { DbDate, dbId, DbInt } from "../platform/SqlRows.js"

const NullableText = Schema.NullOr(Schema.String)

/** A row of `events` as every events repo reads it (`EVENT_COLUMNS`), decoded: ids are numbers. */
export const EventRow = Schema.Struct({
  id: dbId(EventId),
  tenant_id: DbInt,
  user_id: dbId(UserId),
  title: Schema.String,
  description: Schema.String,
  start_time: DbDate,
  end_time: Schema.NullOr(DbDate),
  location: NullableText,
  latitude: Schema.NullOr(Schema.Number),
  longitude: Schema.NullOr(Schema.Number),
  max_attendees: Schema.NullOr(Schema.Int),
  is_online: Schema.Boolean,
  online_link: NullableText,
  video_url: NullableText,
  allow_remote_attendance: Schema.Boolean,
  image_url: NullableText,
  cover_image: NullableText,
  category_id: Schema.NullOr(dbId(CategoryId)),
  group_id: Schema.NullOr(DbInt),
  federated_visibility: Schema.String,
  members_only: Schema.Boolean,
  status: EventStatus,
  cancel_reason: NullableText,
  cancelled_at: Schema.NullOr(DbDate),
  is_recurring_template: Schema.Boolean,
  parent_event_id: Schema.NullOr(dbId(EventId)),
  /** `YYYY-MM-DD`, read as text (see EVENT_COLUMNS). */
  occurrence_date: NullableText,
  series_id: Schema.NullOr(dbId(EventSeriesId)),
  created_at: DbDate,
  updated_at: DbDate
})
export type EventRow = typeof EventRow.Type

/** The columns of an `EventRow`. `occurrence_date` as text: the driver would turn a date into a local-midnight Date. */
export const EVENT_COLUMNS = `id, tenant_id, user_id, title, description, start_time, end_time, location, latitude,
  longitude, max_attendees, is_online, online_link, video_url, allow_remote_attendance, image_url, cover_image,
  category_id, group_id, federated_visibility, members_only, status, cancel_reason, cancelled_at,
  is_recurring_template, parent_event_id, to_char(occurrence_date, 'YYYY-MM-DD') AS occurrence_date, series_id,
  created_at, updated_at`

/** Columns a create writes (the rest keep their defaults). */
export interface EventInsert {
  readonly user_id: number
  readonly title: string
  readonly description: string
  readonly start_time: Date
  readonly end_time: Date | null
  readonly location: string | null
  readonly latitude: number | null
  readonly longitude: number | null
  readonly max_attendees: number | null
  readonly is_online: boolean
  readonly online_link: string | null
  readonly video_url: string | null
  readonly allow_remote_attendance: boolean
  readonly image_url: string | null
  readonly category_id: number | null
  readonly group_id: number | null
  readonly federated_visibility: string
  readonly members_only: boolean
}

/** Columns an edit may set; a missing key leaves the column as it is. */
export type EventPatch = Partial<Omit<EventInsert, "user_id" | "members_only">>

type SeriesPosition = Pick<EventRow, "id" | "is_recurring_template" | "parent_event_id">

/** The recurring series an event belongs to: its own id for a template, its parent's for an occurrence, else null. */
export const templateIdOf = (row: SeriesPosition): number | null =>
  row.is_recurring_template ? row.id : row.parent_event_id

/** The row a series shares its cover and calendar entry with: the template of a recurring series, else the event. */
export const seriesRootOf = (
  event: Pick<EventRow, "is_recurring_template"> & { readonly id: number; readonly parent_event_id: number | null }
): number => event.is_recurring_template ? event.id : event.parent_event_id ?? event.id

/** The columns an event shows as they are stored: its API view and its outbox snapshot both carry them. */
export const storedFields = (row: EventRow) => ({
  title: row.title,
  description: row.description,
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
  group_id: row.group_id,
  federated_visibility: row.federated_visibility,
  members_only: row.members_only,
  status: row.status,
  cancel_reason: row.cancel_reason,
  is_recurring_template: row.is_recurring_template,
  parent_event_id: row.parent_event_id,
  occurrence_date: row.occurrence_date,
  series_id: row.series_id
})
