import { type CurrentTenant, EventId, EventStatus, UserId } from "@timebank/domain"
import { Effect, type Option, Schema } from "effect"
import { DbDate, dbId, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** An event as partners may see it: no online link (for attendees), no moderation or series internals. */
export const SharedEventRow = Schema.Struct({
  id: dbId(EventId),
  user_id: dbId(UserId),
  title: Schema.String,
  description: Schema.String,
  start_time: DbDate,
  end_time: Schema.NullOr(DbDate),
  location: Schema.NullOr(Schema.String),
  is_online: Schema.Boolean,
  max_attendees: Schema.NullOr(Schema.Int),
  image_url: Schema.NullOr(Schema.String),
  federated_visibility: Schema.String,
  status: EventStatus,
  created_at: DbDate,
  updated_at: DbDate
})
export type SharedEvent = typeof SharedEventRow.Type

const events = decodeRows(SharedEventRow)
const firstEvent = decodeFirst(SharedEventRow)

/**
 * Events' published read for federation (decisions D13a): events whose organiser shared them with partners
 * (`federated_visibility` other than `none`). A recurring series' template is its definition, never an event one
 * attends, so it is not shown; its occurrences are, each on its own.
 */
export class SharedEvents extends Effect.Service<SharedEvents>()("SharedEvents", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const columns = sql`id, user_id, title, description, start_time, end_time, location, is_online, max_attendees,
                        COALESCE(cover_image, image_url) AS image_url, federated_visibility, status, created_at,
                        updated_at`
    const shared = (tenantId: number) =>
      sql`tenant_id = ${tenantId} AND federated_visibility <> 'none' AND NOT is_recurring_template`

    /**
     * Active events that have not ended (end, or start without one, now or later), soonest first, after the cursor
     * `[start millis, id]`; `limit` rows. Served by the partial index `events_federated` (migration 0016).
     */
    const upcoming = (q: {
      readonly now: Date
      readonly after?: readonly [number, number] | undefined
      readonly limit: number
    }): Effect.Effect<ReadonlyArray<SharedEvent>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM events
            WHERE ${shared(tenantId)} AND status = 'active' AND COALESCE(end_time, start_time) >= ${q.now}
              ${q.after === undefined ? sql`` : sql`AND (start_time, id) > (${new Date(q.after[0])}, ${q.after[1]})`}
            ORDER BY start_time, id LIMIT ${q.limit}`.pipe(events)
      )

    /** A shared event, past or cancelled ones included (a partner holding its id learns what became of it). */
    const find = (id: number): Effect.Effect<Option.Option<SharedEvent>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM events WHERE ${shared(tenantId)} AND id = ${id}`.pipe(firstEvent)
      )

    return { upcoming, find } as const
  })
}) {}
