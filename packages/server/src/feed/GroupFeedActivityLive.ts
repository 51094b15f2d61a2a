import { Effect, Layer, Schema } from "effect"
import { GroupFeedActivity } from "../groups/admin/GroupFeedActivity.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

const PerGroup = Schema.Struct({ group_id: DbInt, n: DbInt })

/**
 * The feed's answer to the groups' port: posts in groups since a moment, per group, in one grouped query over
 * index `feed_posts_group_created` (hidden posts count: they were written).
 */
export const GroupFeedActivityLive = Layer.effect(
  GroupFeedActivity,
  Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    return GroupFeedActivity.of({
      postsSince: (since, groupIds) =>
        groupIds !== undefined && groupIds.length === 0
          ? Effect.succeed({ total: 0, byGroup: new Map() })
          : db.query((tenantId) =>
            sql`SELECT group_id, count(*)::int AS n FROM feed_posts
                WHERE tenant_id = ${tenantId} AND group_id IS NOT NULL AND deleted_at IS NULL
                  AND created_at >= ${since}
                  ${groupIds === undefined ? sql`` : sql`AND group_id = ANY(${pgArray(groupIds)}::bigint[])`}
                GROUP BY group_id`.pipe(
              decodeRows(PerGroup),
              Effect.map((rows) => ({
                total: rows.reduce((sum, r) => sum + r.n, 0),
                byGroup: new Map(rows.map((r) => [r.group_id, r.n] as const))
              }))
            )
          )
    })
  })
).pipe(Layer.provide(TenantSql.Default))
