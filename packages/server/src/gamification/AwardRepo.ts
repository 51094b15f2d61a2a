import { AwardSource, BadgeId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A badge a member holds, with the badge's fields. */
export const AwardRow = Schema.Struct({
  id: dbId(BadgeId),
  key: Schema.String,
  name: Schema.String,
  description: Schema.String,
  icon: Schema.NullOr(Schema.String),
  awarded_at: DbDate,
  source: AwardSource,
  awarded_by: Schema.NullOr(DbInt)
})
export type AwardRow = typeof AwardRow.Type

/** A new award, with what its notification names. */
export const NewAward = Schema.Struct({
  user_id: DbInt,
  badge_id: dbId(BadgeId),
  key: Schema.String,
  name: Schema.String
})
export type NewAward = typeof NewAward.Type

const awards = decodeRows(AwardRow)
const firstAward = decodeFirst(AwardRow)
const newAwards = decodeRows(NewAward)

/** Members' badges (`user_badges`). */
export class AwardRepo extends Effect.Service<AwardRepo>()("AwardRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(
      "b.id, b.key, b.name, b.description, b.icon, ub.awarded_at, ub.source, ub.awarded_by"
    )

    return {
      /** A member's badges, latest first. */
      ofMember: (userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT ${columns} FROM user_badges ub JOIN badges b ON b.id = ub.badge_id
            WHERE ub.tenant_id = ${tenantId} AND ub.user_id = ${userId}
            ORDER BY ub.awarded_at DESC, b.id DESC`.pipe(awards)
        ),

      /** Awards one badge to one member; None when they hold it already (or the badge is not this community's). */
      award: (badgeId: number, userId: number, source: AwardSource, by: number | null) =>
        db.query((tenantId) =>
          sql`
            WITH added AS (
              INSERT INTO user_badges (tenant_id, user_id, badge_id, source, awarded_by)
              SELECT ${tenantId}, ${userId}, b.id, ${source}, ${by} FROM badges b
              WHERE b.tenant_id = ${tenantId} AND b.id = ${badgeId}
              ON CONFLICT (badge_id, user_id) DO NOTHING
              RETURNING badge_id, awarded_at, source, awarded_by
            )
            SELECT b.id, b.key, b.name, b.description, b.icon, ub.awarded_at, ub.source, ub.awarded_by
            FROM added ub JOIN badges b ON b.id = ub.badge_id`.pipe(firstAward)
        ),

      /** Awards one badge to each of `userIds` who lacks it; answers those who got it. */
      awardMany: (badgeId: number, userIds: ReadonlyArray<number>, source: AwardSource, by: number | null) =>
        db.query((tenantId) =>
          sql`
            WITH added AS (
              INSERT INTO user_badges (tenant_id, user_id, badge_id, source, awarded_by)
              SELECT ${tenantId}, u.id, b.id, ${source}, ${by}
              FROM badges b, unnest(${pgArray(userIds)}::bigint[]) AS u(id)
              WHERE b.tenant_id = ${tenantId} AND b.id = ${badgeId}
              ON CONFLICT (badge_id, user_id) DO NOTHING
              RETURNING user_id, badge_id
            )
            SELECT added.user_id, b.id AS badge_id, b.key, b.name
            FROM added JOIN badges b ON b.id = added.badge_id ORDER BY added.user_id`.pipe(newAwards)
        ),

      /**
       * Awards every badge with criteria that a member's recorded progress (the XP ledger's sum of `quantity` per
       * event type) reaches and they do not hold yet: one statement for the whole community (`userIds` null) or
       * for some members. Answers the new awards.
       */
      awardEarned: (userIds: ReadonlyArray<number> | null) =>
        db.query((tenantId) => {
          const members = userIds === null ? sql`` : sql`AND x.user_id = ANY(${pgArray(userIds)}::bigint[])`
          return sql`
            WITH progress AS (
              SELECT x.user_id, x.event_type, sum(x.quantity) AS total
              FROM gamification_xp x
              WHERE x.tenant_id = ${tenantId} ${members}
              GROUP BY x.user_id, x.event_type
            ), added AS (
              INSERT INTO user_badges (tenant_id, user_id, badge_id, source)
              SELECT ${tenantId}, p.user_id, b.id, 'criteria'
              FROM badges b JOIN progress p ON p.event_type = b.criteria_event AND p.total >= b.criteria_threshold
              WHERE b.tenant_id = ${tenantId} AND b.criteria_event IS NOT NULL
              ON CONFLICT (badge_id, user_id) DO NOTHING
              RETURNING user_id, badge_id
            )
            SELECT added.user_id, b.id AS badge_id, b.key, b.name
            FROM added JOIN badges b ON b.id = added.badge_id ORDER BY added.user_id, b.id`.pipe(newAwards)
        }),

      /** Takes a badge back; false when the member did not hold it. */
      revoke: (badgeId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            DELETE FROM user_badges
            WHERE tenant_id = ${tenantId} AND badge_id = ${badgeId} AND user_id = ${userId}
            RETURNING badge_id`.pipe(Effect.map((rows) => rows.length > 0))
        )
    } as const
  })
}) {}
