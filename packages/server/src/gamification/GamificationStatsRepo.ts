import { BadgeId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { dbId, DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const Totals = Schema.Struct({
  badges: DbInt,
  criteria_badges: DbInt,
  awarded: DbInt,
  members_with_badges: DbInt,
  members_with_xp: DbInt,
  xp_total: DbInt,
  active_campaigns: DbInt
})

const TopBadge = Schema.Struct({ id: dbId(BadgeId), key: Schema.String, name: Schema.String, awarded: DbInt })

export const TOP_BADGES = 5

/** The figures of `GET /admin/gamification/stats`, computed live from the feature's tables. */
export class GamificationStatsRepo extends Effect.Service<GamificationStatsRepo>()("GamificationStatsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      totals: (now: Date) =>
        db.query((tenantId) =>
          sql`
            SELECT
              (SELECT count(*) FROM badges WHERE tenant_id = ${tenantId})::int AS badges,
              (SELECT count(*) FROM badges WHERE tenant_id = ${tenantId} AND criteria_event IS NOT NULL)::int
                AS criteria_badges,
              (SELECT count(*) FROM user_badges WHERE tenant_id = ${tenantId})::int AS awarded,
              (SELECT count(DISTINCT user_id) FROM user_badges WHERE tenant_id = ${tenantId})::int
                AS members_with_badges,
              (SELECT count(DISTINCT user_id) FROM gamification_xp WHERE tenant_id = ${tenantId})::int
                AS members_with_xp,
              (SELECT coalesce(sum(points), 0) FROM gamification_xp WHERE tenant_id = ${tenantId})::bigint
                AS xp_total,
              (SELECT count(*) FROM gamification_campaigns
               WHERE tenant_id = ${tenantId} AND is_active AND starts_at <= ${now} AND ends_at > ${now})::int
                AS active_campaigns`.pipe(decodeSingle(Totals))
        ),

      /** The badges held by most members (ties: the older badge first). */
      topBadges: db.query((tenantId) =>
        sql`
          SELECT b.id, b.key, b.name, count(*)::int AS awarded
          FROM user_badges ub JOIN badges b ON b.id = ub.badge_id
          WHERE ub.tenant_id = ${tenantId}
          GROUP BY b.id, b.key, b.name
          ORDER BY awarded DESC, b.id
          LIMIT ${TOP_BADGES}`.pipe(decodeRows(TopBadge))
      )
    } as const
  })
}) {}
