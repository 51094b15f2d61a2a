import {
  type ActivityItem,
  type ActivityLogParams,
  type AuditEntry,
  CurrentTenant,
  DASHBOARD_ACTIVITY_LIMIT,
  isCalendarDate,
  offsetMeta,
  type UserId,
  type UserSummary,
  ValidationFailed
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { UserSummaries } from "../../identity/UserSummaries.js"
import { offsetPage } from "../../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { PLATFORM_TENANT_SLUG, TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { ActivityRepo, type AuditRow, type EventRow, type TimeBound } from "./ActivityRepo.js"

const DEFAULT_PER_PAGE = 20

const DAY_MS = 24 * 60 * 60 * 1000

/** `from`: a date starts at its first instant (UTC). */
const fromBound = (value: string) => new Date(isCalendarDate(value) ? `${value}T00:00:00Z` : value)

/** `to`: a date covers its whole day, so the bound is the next day's start, exclusive. */
const toBound = (value: string): TimeBound =>
  isCalendarDate(value)
    ? { at: new Date(Date.parse(`${value}T00:00:00Z`) + DAY_MS), inclusive: false }
    : { at: new Date(value), inclusive: true }

const isEmptyRange = (from: Date, to: TimeBound) =>
  to.inclusive ? from.getTime() > to.at.getTime() : from.getTime() >= to.at.getTime()

const nameOf = (summary: UserSummary) => `${summary.first_name} ${summary.last_name}`.trim()

type Names = ReadonlyMap<number, UserSummary>

const entryOf = (row: AuditRow, names: Names): AuditEntry => {
  const summary = row.actor_id === null ? undefined : names.get(row.actor_id)
  return {
    id: row.id,
    actor: row.actor_id === null
      ? null
      : { id: row.actor_id as UserId, name: summary === undefined ? "Unknown user" : nameOf(summary) },
    action: row.action,
    target_type: row.target_type,
    target_id: row.target_id,
    details: row.details,
    created_at: DateTime.unsafeFromDate(row.created_at)
  }
}

const eventOf = (row: EventRow): ActivityItem => ({
  kind: "event",
  id: row.id,
  event_type: row.event_type,
  created_at: DateTime.unsafeFromDate(row.created_at)
})

/** Newest first; at the same instant an admin write comes before the events it raised (it was recorded after). */
const byTimeDesc = (
  a: { readonly at: number; readonly rank: number },
  b: { readonly at: number; readonly rank: number }
) => b.at - a.at || a.rank - b.rank

/** What admins read of the audit trail: the activity log and the dashboard's latest activity (decisions D17). */
export class ActivityService extends Effect.Service<ActivityService>()("ActivityService", {
  dependencies: [ActivityRepo.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const repo = yield* ActivityRepo
    const summaries = yield* UserSummaries
    const tenants = yield* TenantDirectory

    /**
     * Actors' names in two batches at most: members of this community, then platform super-admins (who act on a
     * community while belonging to the `platform` tenant).
     */
    const actorNames = (rows: ReadonlyArray<AuditRow>) =>
      Effect.gen(function*() {
        const ids = rows.flatMap((row) => (row.actor_id === null ? [] : [row.actor_id]))
        const local = yield* summaries.byIds(ids)
        const missing = ids.filter((id) => !local.has(id))
        if (missing.length === 0) return local
        const platform = yield* tenants.find({ _tag: "Slug", slug: PLATFORM_TENANT_SLUG })
        if (Option.isNone(platform)) return local
        const visitors = yield* Effect.provideService(summaries.byIds(missing), CurrentTenant, platform.value)
        return new Map([...local, ...visitors])
      })

    const log = Effect.fn("Activity.log")(function*(params: ActivityLogParams) {
      yield* TenantAdmin
      const from = params.from === undefined ? undefined : fromBound(params.from)
      const to = params.to === undefined ? undefined : toBound(params.to)
      if (from !== undefined && to !== undefined && isEmptyRange(from, to)) {
        return yield* ValidationFailed.field("from", "must not be after `to`")
      }
      const { page, perPage } = offsetPage(params, DEFAULT_PER_PAGE)
      const { rows, total } = yield* repo.list({
        page,
        perPage,
        actorId: params.actor_id,
        action: params.action,
        targetType: params.target_type,
        from,
        to
      })
      const names = yield* actorNames(rows)
      return { data: rows.map((row) => entryOf(row, names)), meta: offsetMeta(page, perPage, total) }
    }, requireTenantAdmin)

    const dashboard = Effect.fn("Activity.dashboard")(function*() {
      yield* TenantAdmin
      const [audits, events] = yield* Effect.all([
        repo.latest(DASHBOARD_ACTIVITY_LIMIT),
        repo.latestEvents(DASHBOARD_ACTIVITY_LIMIT)
      ], { concurrency: 2 })
      const names = yield* actorNames(audits)
      const items = [
        ...audits.map((row) => ({
          at: row.created_at.getTime(),
          rank: 0,
          item: { kind: "audit" as const, ...entryOf(row, names) }
        })),
        ...events.map((row) => ({ at: row.created_at.getTime(), rank: 1, item: eventOf(row) }))
      ]
      return items.sort(byTimeDesc).slice(0, DASHBOARD_ACTIVITY_LIMIT).map(({ item }): ActivityItem => item)
    }, requireTenantAdmin)

    return { log, dashboard } as const
  })
}) {}
