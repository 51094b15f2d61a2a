import type { EventRow } from "./EventRepo.js"

const optionalId = (value: string | null) => (value === null ? null : Number(value))

/**
 * The event as domain events carry it (outbox payloads): subscribers such as notifications and federation get what
 * they need without reading a row that may be gone by the time they run (a delete).
 */
export const eventSnapshot = (row: EventRow) => ({
  id: Number(row.id),
  user_id: Number(row.user_id),
  title: row.title,
  description: row.description,
  start_time: row.start_time.toISOString(),
  end_time: row.end_time?.toISOString() ?? null,
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
  category_id: optionalId(row.category_id),
  group_id: optionalId(row.group_id),
  federated_visibility: row.federated_visibility,
  members_only: row.members_only,
  status: row.status,
  cancel_reason: row.cancel_reason,
  is_recurring_template: row.is_recurring_template,
  parent_event_id: optionalId(row.parent_event_id),
  occurrence_date: row.occurrence_date,
  series_id: optionalId(row.series_id)
})

export type EventSnapshot = ReturnType<typeof eventSnapshot>
