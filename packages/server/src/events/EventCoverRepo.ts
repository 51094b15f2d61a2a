import { Effect, Schema } from "effect"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const Id = Schema.Struct({ id: DbInt })
const Cover = Schema.Struct({ cover_image: Schema.String })

/** The cover images of events: a recurring series shares one, so these statements reach a root and its occurrences. */
export class EventCoverRepo extends Effect.Service<EventCoverRepo>()("EventCoverRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** Sets the cover of the series root and all its occurrences in one statement; returns the ids changed. */
      set: (rootId: number, url: string) =>
        db.query((tenantId) =>
          sql`UPDATE events SET cover_image = ${url}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND (id = ${rootId} OR parent_event_id = ${rootId})
            RETURNING id`.pipe(decodeRows(Id), Effect.map((rows) => rows.map((r) => r.id).sort((a, b) => a - b)))
        ),

      /**
       * The covers the series' rows show before the change, each once. The rows are locked, so two replacements of
       * one series take turns and each sees the cover the other set.
       */
      ofSeries: (rootId: number) =>
        db.query((tenantId) =>
          sql`SELECT cover_image FROM events
            WHERE tenant_id = ${tenantId} AND (id = ${rootId} OR parent_event_id = ${rootId})
              AND cover_image IS NOT NULL
            FOR UPDATE`.pipe(decodeRows(Cover), Effect.map((rows) => [...new Set(rows.map((r) => r.cover_image))]))
        ),

      /** Which of these covers an event of the community still shows (a detached occurrence keeps its old one). */
      inUse: (urls: ReadonlyArray<string>) =>
        db.query((tenantId) =>
          sql`SELECT DISTINCT cover_image FROM events
            WHERE tenant_id = ${tenantId} AND cover_image IN ${sql.in(urls)}`.pipe(
            decodeRows(Cover),
            Effect.map((rows) => new Set(rows.map((r) => r.cover_image)))
          )
        )
    } as const
  })
}) {}
