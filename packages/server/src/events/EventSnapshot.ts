import type { DomainEvents } from "@timebank/domain"
import { type EventRow, storedFields } from "./EventRow.js"

/**
 * The event as domain events carry it (outbox payloads): subscribers such as notifications and federation get what
 * they need without reading a row that may be gone by the time they run (a delete).
 */
export const eventSnapshot = (row: EventRow): DomainEvents.CommunityEventSnapshot => ({
  id: row.id,
  user_id: row.user_id,
  ...storedFields(row),
  start_time: row.start_time.toISOString(),
  end_time: row.end_time?.toISOString() ?? null,
  category_id: row.category_id
})
