import { BadgeId, type BadgeId as BadgeIdType, CriteriaEvent } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import { BADGE_CATALOGUE } from "./BadgeCatalogue.js"

/** A badge with how many members hold it. */
export const BadgeRow = Schema.Struct({
  id: dbId(BadgeId),
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  icon: Schema.NullOr(Schema.String),
  criteria_event: Schema.NullOr(CriteriaEvent),
  criteria_threshold: Schema.NullOr(DbInt),
  awarded_count: DbInt,
  created_at: DbDate,
  updated_at: DbDate
})
export type BadgeRow = typeof BadgeRow.Type

export interface BadgeInsert {
  readonly key: string
  readonly name: string
  readonly description: string
  readonly icon: string | null
  readonly criteria: { readonly event: CriteriaEvent; readonly threshold: number } | null
}

const firstBadge = decodeFirst(BadgeRow)
const badges = decodeRows(BadgeRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

/** The community's badges (`badges`); installing the default catalogue once per community. */
export class BadgeRepo extends Effect.Service<BadgeRepo>()("BadgeRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(
      `b.id, b.key, b.name, b.description, b.icon, b.criteria_event, b.criteria_threshold, b.created_at,
       b.updated_at, (SELECT count(*) FROM user_badges ub WHERE ub.badge_id = b.id)::int AS awarded_count`
    )

    return {
      /**
       * The default catalogue, the first time only (the community's row in `gamification_tenants` says it was
       * done): one statement, so two callers at once install it once. A key an admin took first is left alone.
       */
      installCatalogue: db.query((tenantId) =>
        sql`
          WITH first AS (
            INSERT INTO gamification_tenants (tenant_id) VALUES (${tenantId})
            ON CONFLICT (tenant_id) DO NOTHING RETURNING tenant_id
          )
          INSERT INTO badges (tenant_id, key, name, description, icon, criteria_event, criteria_threshold)
          SELECT first.tenant_id, c.key, c.name, c.description, c.icon, c.event, c.threshold
          FROM first, unnest(
            ${pgArray(BADGE_CATALOGUE.map((b) => b.key))}::text[],
            ${pgArray(BADGE_CATALOGUE.map((b) => b.name))}::text[],
            ${pgArray(BADGE_CATALOGUE.map((b) => b.description))}::text[],
            ${pgArray(BADGE_CATALOGUE.map((b) => b.icon))}::text[],
            ${pgArray(BADGE_CATALOGUE.map((b) => b.criteria.event))}::text[],
            ${pgArray(BADGE_CATALOGUE.map((b) => b.criteria.threshold))}::int[]
          ) AS c(key, name, description, icon, event, threshold)
          ON CONFLICT (tenant_id, key) DO NOTHING`.pipe(Effect.asVoid)
      ),

      /** A page of badges, oldest first, and how many there are. */
      list: (page: number, perPage: number) =>
        db.query((tenantId) =>
          Effect.all({
            rows: sql`
              SELECT ${columns} FROM badges b WHERE b.tenant_id = ${tenantId}
              ORDER BY b.id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`.pipe(badges),
            total: sql`SELECT count(*)::int AS n FROM badges WHERE tenant_id = ${tenantId}`.pipe(
              count,
              Effect.map((r) => r.n)
            )
          })
        ),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM badges b WHERE b.tenant_id = ${tenantId} AND b.id = ${id}`.pipe(firstBadge)
        ),

      /** The new badge; None when its key is taken in this community. */
      insert: (badge: BadgeInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO badges ${
            sql.insert({
              tenant_id: tenantId,
              key: badge.key,
              name: badge.name,
              description: badge.description,
              icon: badge.icon,
              criteria_event: badge.criteria?.event ?? null,
              criteria_threshold: badge.criteria?.threshold ?? null
            })
          }
            ON CONFLICT (tenant_id, key) DO NOTHING
            RETURNING id, key, name, description, icon, criteria_event, criteria_threshold, created_at, updated_at,
                      0 AS awarded_count`.pipe(firstBadge)
        ),

      /** Deletes the badge and (by cascade) every award of it; false when there was none here. */
      remove: (id: BadgeIdType) =>
        db.query((tenantId) =>
          sql`DELETE FROM badges WHERE tenant_id = ${tenantId} AND id = ${id} RETURNING id`.pipe(
            Effect.map((rows) => rows.length > 0)
          )
        )
    } as const
  })
}) {}
