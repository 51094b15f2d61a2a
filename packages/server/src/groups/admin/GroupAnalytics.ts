import type { GroupAnalytics as Analytics, GroupStatus } from "@timebank/domain"
import { DateTime, Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"
import { GroupFeedActivity } from "./GroupFeedActivity.js"

export const ACTIVITY_WINDOW_DAYS = 30
export const GROWTH_MONTHS = 12

const StatusRow = Schema.Struct({ status: Schema.String, n: DbInt, featured: DbInt })
const MembersRow = Schema.Struct({ total: DbInt, active: DbInt, pending: DbInt, banned: DbInt, distinct_active: DbInt })
const PerGroup = Schema.Struct({ group_id: DbInt, n: DbInt })
const PerMonth = Schema.Struct({ month: Schema.String, n: DbInt })
const IdRow = Schema.Struct({ id: DbInt })

/** `YYYY-MM` of the `GROWTH_MONTHS` months up to `now`'s, oldest first (UTC). */
export const growthMonths = (now: Date, months = GROWTH_MONTHS): ReadonlyArray<string> =>
  Array.from({ length: months }, (_, i) => {
    const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - (months - 1 - i), 1))
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, "0")}`
  })

const STATUSES: ReadonlyArray<GroupStatus> = ["pending_review", "active", "dormant", "archived", "rejected"]

/**
 * `GET /admin/groups/analytics` (decisions D17): a handful of aggregate queries side by side, each over an index of
 * the community's rows (never one query per group); feed posts through the feed's port.
 */
export class GroupAnalyticsService extends Effect.Service<GroupAnalyticsService>()("GroupAnalyticsService", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const feed = yield* GroupFeedActivity

    const analytics = Effect.gen(function*() {
      const now = new Date()
      const since = new Date(now.getTime() - ACTIVITY_WINDOW_DAYS * 86_400_000)
      const months = growthMonths(now)
      const growthStart = new Date(`${months[0]}-01T00:00:00Z`)
      const { chat, groupsPerMonth, members, membershipsPerMonth, posts, statuses } = yield* Effect.all({
        statuses: db.query((tenantId) =>
          sql`SELECT status, count(*)::int AS n, count(featured_at)::int AS featured FROM groups
              WHERE tenant_id = ${tenantId} AND deleted_at IS NULL GROUP BY status`.pipe(decodeRows(StatusRow))
        ),
        members: db.query((tenantId) =>
          sql`SELECT count(*)::int AS total,
                     count(*) FILTER (WHERE m.status = 'active')::int AS active,
                     count(*) FILTER (WHERE m.status = 'pending')::int AS pending,
                     count(*) FILTER (WHERE m.status = 'banned')::int AS banned,
                     count(DISTINCT m.user_id) FILTER (WHERE m.status = 'active')::int AS distinct_active
              FROM group_members m
              JOIN groups g ON g.id = m.group_id AND g.tenant_id = ${tenantId} AND g.deleted_at IS NULL
              WHERE m.tenant_id = ${tenantId}`.pipe(decodeSingle(MembersRow))
        ),
        chat: db.query((tenantId) =>
          sql`SELECT group_id, count(*)::int AS n FROM group_messages
              WHERE tenant_id = ${tenantId} AND created_at >= ${since} GROUP BY group_id`.pipe(decodeRows(PerGroup))
        ),
        posts: feed.postsSince(since),
        groupsPerMonth: db.query((tenantId) =>
          sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n FROM groups
              WHERE tenant_id = ${tenantId} AND deleted_at IS NULL AND created_at >= ${growthStart}
              GROUP BY 1`.pipe(decodeRows(PerMonth))
        ),
        membershipsPerMonth: db.query((tenantId) =>
          sql`SELECT to_char(m.joined_at AT TIME ZONE 'UTC', 'YYYY-MM') AS month, count(*)::int AS n
              FROM group_members m
              JOIN groups g ON g.id = m.group_id AND g.tenant_id = ${tenantId} AND g.deleted_at IS NULL
              WHERE m.tenant_id = ${tenantId} AND m.joined_at >= ${growthStart}
              GROUP BY 1`.pipe(decodeRows(PerMonth))
        )
      }, { concurrency: "unbounded" })

      // Activity counts what was written in groups that still exist.
      const touched = [...new Set([...chat.map((r) => r.group_id), ...posts.byGroup.keys()])]
      const live = touched.length === 0 ?
        new Set<number>() :
        yield* db.query((tenantId) =>
          sql`SELECT id FROM groups WHERE tenant_id = ${tenantId} AND deleted_at IS NULL
              AND id = ANY(${pgArray(touched)}::bigint[])`.pipe(
            decodeRows(IdRow),
            Effect.map((rows) => new Set(rows.map((r) => r.id)))
          )
        )
      const sumLive = (entries: Iterable<readonly [number, number]>) => {
        let sum = 0
        for (const [id, n] of entries) if (live.has(id)) sum += n
        return sum
      }

      const byStatus = Object.fromEntries(
        STATUSES.map((s) => [s, statuses.find((r) => r.status === s)?.n ?? 0])
      ) as Record<GroupStatus, number>
      const monthCount = (rows: ReadonlyArray<typeof PerMonth.Type>, month: string) =>
        rows.find((r) => r.month === month)?.n ?? 0
      return {
        groups: {
          total: statuses.reduce((sum, r) => sum + r.n, 0),
          by_status: byStatus,
          featured: statuses.reduce((sum, r) => sum + r.featured, 0)
        },
        members,
        activity: {
          since: DateTime.unsafeFromDate(since),
          chatroom_messages: sumLive(chat.map((r) => [r.group_id, r.n] as const)),
          feed_posts: sumLive(posts.byGroup),
          active_groups: live.size
        },
        growth: months.map((month) => ({
          month,
          new_groups: monthCount(groupsPerMonth, month),
          new_memberships: monthCount(membershipsPerMonth, month)
        }))
      } satisfies Analytics
    }).pipe(Effect.withSpan("GroupAnalytics.analytics"))

    return { analytics } as const
  })
}) {}
