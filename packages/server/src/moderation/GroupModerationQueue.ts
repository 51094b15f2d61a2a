import {
  GroupId,
  type GroupModerationItem,
  type GroupModerationParams,
  type GroupModerationReason,
  offsetMeta,
  UserId
} from "@timebank/domain"
import { DateTime, Effect, Schema } from "effect"
import { GroupDirectory } from "../groups/GroupDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { DbDate, DbInt, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

export const DEFAULT_GROUP_MODERATION_PER_PAGE = 20

const OpenReports = Schema.Struct({ target_id: DbInt, n: DbInt, oldest: DbDate })

/** One group of the queue before paging: why it is there and since when. */
export interface QueueEntry {
  readonly id: number
  readonly reasons: ReadonlyArray<GroupModerationReason>
  readonly openReports: number
  readonly oldestReport: Date | null
  readonly waitingSince: Date
}

/**
 * The queue's order and filter, from the open reports per group and the groups that still exist (reported or
 * waiting): the longest waiting first, then by id. Reports about deleted groups are left out.
 */
export const queueEntries = (
  reports: ReadonlyMap<number, { readonly n: number; readonly oldest: Date }>,
  groups: ReadonlyArray<{ readonly id: number; readonly status: string; readonly created_at: Date }>,
  reason?: GroupModerationReason
): ReadonlyArray<QueueEntry> =>
  groups
    .flatMap((g): ReadonlyArray<QueueEntry> => {
      const report = reports.get(g.id)
      const pending = g.status === "pending_review"
      const reasons: Array<GroupModerationReason> = []
      if (report !== undefined) reasons.push("reported")
      if (pending) reasons.push("pending_review")
      if (reasons.length === 0 || (reason !== undefined && !reasons.includes(reason))) return []
      const since = [...(report ? [report.oldest] : []), ...(pending ? [g.created_at] : [])]
      return [{
        id: g.id,
        reasons,
        openReports: report?.n ?? 0,
        oldestReport: report?.oldest ?? null,
        waitingSince: new Date(Math.min(...since.map((d) => d.getTime())))
      }]
    })
    .sort((a, b) => a.waitingSince.getTime() - b.waitingSince.getTime() || a.id - b.id)

/**
 * `GET /admin/groups/moderation` (decisions D17 "Groups admin"): groups with open member reports or waiting for
 * review. Three queries whatever the page: open group reports (grouped), the groups through `GroupDirectory`, the
 * page's owners. The queue is built in memory: it holds only reported and waiting groups.
 */
export class GroupModerationQueue extends Effect.Service<GroupModerationQueue>()("GroupModerationQueue", {
  dependencies: [TenantSql.Default, GroupDirectory.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const groups = yield* GroupDirectory
    const users = yield* UserSummaries

    const queue = Effect.fn("GroupModerationQueue.queue")(function*(params: GroupModerationParams) {
      yield* TenantAdmin
      const { page, perPage } = offsetPage(params, DEFAULT_GROUP_MODERATION_PER_PAGE)
      const reports = yield* db.query((tenantId) =>
        sql`SELECT target_id, count(*)::int AS n, min(created_at) AS oldest FROM member_reports
            WHERE tenant_id = ${tenantId} AND status = 'open' AND target_type = 'group'
            GROUP BY target_id`.pipe(decodeRows(OpenReports))
      )
      const byGroup = new Map(reports.map((r) => [r.target_id, { n: r.n, oldest: r.oldest }] as const))
      const summaries = yield* groups.forModeration([...byGroup.keys()])
      const entries = queueEntries(byGroup, summaries, params.reason)
      const slice = entries.slice((page - 1) * perPage, page * perPage)
      const summaryOf = new Map(summaries.map((g) => [g.id, g] as const))
      const owners = yield* users.byIds(slice.map((e) => summaryOf.get(e.id)!.owner_id))
      const data = slice.map((e): GroupModerationItem => {
        const g = summaryOf.get(e.id)!
        return {
          group: {
            id: GroupId.make(g.id),
            name: g.name,
            visibility: g.visibility,
            status: g.status,
            owner: owners.get(g.owner_id) ??
              { id: UserId.make(g.owner_id), first_name: "Deleted", last_name: "User", avatar_url: null },
            created_at: DateTime.unsafeFromDate(g.created_at)
          },
          reasons: e.reasons,
          open_reports: e.openReports,
          oldest_open_report_at: e.oldestReport === null ? null : DateTime.unsafeFromDate(e.oldestReport),
          waiting_since: DateTime.unsafeFromDate(e.waitingSince)
        }
      })
      return { data, meta: offsetMeta(page, perPage, entries.length) }
    }, requireTenantAdmin)

    return { queue } as const
  })
}) {}
