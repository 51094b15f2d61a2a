import {
  CurrentTenant,
  type DashboardStats,
  type DashboardTrends,
  DEFAULT_TREND_DAYS,
  type TrendDay,
  type TrendsParams
} from "@timebank/domain"
import { Clock, Effect } from "effect"
import { EventStats } from "../../events/EventStats.js"
import { GroupStats } from "../../groups/GroupStats.js"
import { MemberStats } from "../../identity/MemberStats.js"
import { LedgerStats } from "../../ledger/LedgerStats.js"
import { ListingStats } from "../../listings/ListingStats.js"
import { ReportStats } from "../../moderation/ReportStats.js"
import type { DayCount, DaySum } from "../../platform/DaySeries.js"
import { TenantAdmin } from "../../platform/Policy.js"
import { monthOf, trendDays } from "./DashboardCalendar.js"

/** Each figure is one aggregate query of its owner; a few at a time, so one dashboard never holds the pool. */
const CONCURRENCY = 3

const countsByDay = (rows: ReadonlyArray<DayCount>) => new Map(rows.map((r) => [r.day, r.n]))

/**
 * The admin dashboard of the request's community (decisions D17): figures computed live from each owner's
 * aggregates, never from their tables. Every method needs `TenantAdmin`.
 */
export class DashboardService extends Effect.Service<DashboardService>()("DashboardService", {
  dependencies: [
    MemberStats.Default,
    ListingStats.Default,
    LedgerStats.Default,
    EventStats.Default,
    ReportStats.Default,
    GroupStats.Default
  ],
  effect: Effect.gen(function*() {
    const members = yield* MemberStats
    const listings = yield* ListingStats
    const ledger = yield* LedgerStats
    const events = yield* EventStats
    const reports = yield* ReportStats
    const groups = yield* GroupStats

    const stats = Effect.gen(function*() {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const now = new Date(yield* Clock.currentTimeMillis)
      const figures = yield* Effect.all({
        members: members.counts,
        listings: listings.counts,
        exchanges: ledger.exchanges(monthOf(tenant.timezone, now)),
        upcoming: events.upcoming(now),
        open: reports.open,
        groups: groups.pendingReview
      }, { concurrency: CONCURRENCY })
      return {
        members: figures.members,
        listings: figures.listings,
        transactions: { this_month: figures.exchanges.count, hours_this_month: figures.exchanges.hours },
        events: { upcoming: figures.upcoming },
        reports: { open: figures.open },
        approvals: { pending: figures.members.pending + figures.listings.pending + figures.groups }
      } satisfies DashboardStats
    }).pipe(Effect.withSpan("Dashboard.stats"))

    const trends = Effect.fn("Dashboard.trends")(function*(params: TrendsParams) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const now = new Date(yield* Clock.currentTimeMillis)
      const days = yield* trendDays(params, tenant.timezone, now, DEFAULT_TREND_DAYS)
      const series = yield* Effect.all({
        joined: Effect.map(members.joinedPerDay(days.range), countsByDay),
        listings: Effect.map(listings.createdPerDay(days.range), countsByDay),
        exchanges: Effect.map(ledger.exchangesPerDay(days.range), (rows) => new Map(rows.map((r) => [r.day, r]))),
        events: Effect.map(events.startingPerDay(days.range), countsByDay),
        reports: Effect.map(reports.openedPerDay(days.range), countsByDay)
      }, { concurrency: CONCURRENCY })
      const none: DaySum = { day: 0, n: 0, total: 0 }
      return {
        from: days.from,
        to: days.to,
        days: days.dates.map((date, i): TrendDay => {
          const exchanges = series.exchanges.get(i) ?? none
          return {
            date,
            members_joined: series.joined.get(i) ?? 0,
            listings_created: series.listings.get(i) ?? 0,
            transactions: exchanges.n,
            hours: exchanges.total,
            events_starting: series.events.get(i) ?? 0,
            reports_opened: series.reports.get(i) ?? 0
          }
        })
      } satisfies DashboardTrends
    })

    return { stats, trends } as const
  })
}) {}
