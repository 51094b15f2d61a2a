import {
  CurrentTenant,
  type HoursReport,
  type MembersReport,
  type ReportRangeParams,
  type SocialValueConfig,
  type SocialValueConfigInput,
  type SocialValueReport,
  UNCATEGORISED,
  VOLUNTEERING_CATEGORY
} from "@timebank/domain"
import { Clock, Effect } from "effect"
import { MemberReports } from "../identity/MemberReports.js"
import { MemberStats } from "../identity/MemberStats.js"
import { LedgerReports } from "../ledger/LedgerReports.js"
import { LedgerStats } from "../ledger/LedgerStats.js"
import { ListingReports } from "../listings/ListingReports.js"
import { TenantAdmin } from "../platform/Policy.js"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import { VolunteeringReports } from "../volunteering/VolunteeringReports.js"
import { type ReportRange, reportRange } from "./ReportRange.js"

/** Each figure is one aggregate query of its owner; a few at a time, so one report never holds the pool. */
const CONCURRENCY = 3

/** Hours as whole cents, so sums of many `numeric(…, 2)` values stay exact. */
const cents = (hours: number) => Math.round(hours * 100)
const hoursOf = (totalCents: number) => totalCents / 100

const addTo = <K>(map: Map<K, number>, key: K, hours: number) => map.set(key, (map.get(key) ?? 0) + cents(hours))

/** Hours by month of a range: exchanges (per month bucket) plus volunteering (per `YYYY-MM`). */
interface MonthlyHours {
  readonly months: ReadonlyArray<{ readonly month: string; readonly cents: number }>
  readonly exchangeCents: ReadonlyArray<number>
  readonly volunteeringCents: ReadonlyMap<string, number>
}

/**
 * Reports that funders accept (decisions D15, D17 "Funder reports"), computed live from each owner's read
 * services, never from their tables. Hours = approved volunteering hours (by the day worked) + member-to-member
 * exchange hours (`EXCHANGE_TYPES`: transfers and check-in payments). Every method needs `TenantAdmin`.
 */
export class FunderReportsService extends Effect.Service<FunderReportsService>()("FunderReportsService", {
  dependencies: [
    LedgerStats.Default,
    LedgerReports.Default,
    MemberStats.Default,
    MemberReports.Default,
    VolunteeringReports.Default,
    ListingReports.Default
  ],
  effect: Effect.gen(function*() {
    const ledgerStats = yield* LedgerStats
    const ledger = yield* LedgerReports
    const memberStats = yield* MemberStats
    const members = yield* MemberReports
    const volunteering = yield* VolunteeringReports
    const listings = yield* ListingReports
    // One per process (ServicesLive): a PUT here is seen at once by every reader of the area.
    const config = yield* TenantConfig

    /** The range of the request, in the community's time zone (422 on a bad one). */
    const rangeOf = (params: ReportRangeParams) =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        return yield* reportRange(params, tenant.timezone, new Date(yield* Clock.currentTimeMillis))
      })

    const monthly = (range: ReportRange): Effect.Effect<MonthlyHours, never, CurrentTenant> =>
      Effect.map(
        Effect.all([
          ledgerStats.exchangesPerDay(range.monthBuckets),
          volunteering.hoursByMonth(range)
        ], { concurrency: CONCURRENCY }),
        ([exchanges, volunteered]) => {
          const byBucket = new Map(exchanges.map((row) => [row.day, cents(row.total)]))
          const volunteeringCents = new Map(volunteered.map((row) => [row.month, cents(row.hours)]))
          const exchangeCents = range.months.map((_, i) => byBucket.get(i) ?? 0)
          return {
            exchangeCents,
            volunteeringCents,
            months: range.months.map((month, i) => ({
              month,
              cents: exchangeCents[i]! + (volunteeringCents.get(month) ?? 0)
            }))
          }
        }
      )

    const totalOf = (hours: MonthlyHours) => hours.months.reduce((sum, m) => sum + m.cents, 0)

    const hours = Effect.fn("FunderReports.hours")(function*(params: ReportRangeParams) {
      yield* TenantAdmin
      const range = yield* rangeOf(params)
      const { byListing, byMonth, organisations } = yield* Effect.all({
        byMonth: monthly(range),
        byListing: ledger.exchangeHoursByListing(range.period),
        organisations: volunteering.hoursByOrganisation(range)
      }, { concurrency: CONCURRENCY })
      const names = yield* listings.categoryNames(byListing.flatMap((row) => row.listing_id ?? []))
      const categories = new Map<string, number>()
      for (const row of byListing) {
        const name = row.listing_id === null ? null : names.get(row.listing_id) ?? null
        addTo(categories, name ?? UNCATEGORISED, row.hours)
      }
      const volunteered = [...byMonth.volunteeringCents.values()].reduce((sum, c) => sum + c, 0)
      if (volunteered > 0) {
        categories.set(VOLUNTEERING_CATEGORY, (categories.get(VOLUNTEERING_CATEGORY) ?? 0) + volunteered)
      }
      return {
        from: range.from,
        to: range.to,
        total: hoursOf(totalOf(byMonth)),
        by_month: byMonth.months.map((m) => ({ month: m.month, hours: hoursOf(m.cents) })),
        by_category: [...categories]
          .filter(([, c]) => c > 0)
          .sort(([a, x], [b, y]) => y - x || a.localeCompare(b))
          .map(([category, c]) => ({ category, hours: hoursOf(c) })),
        by_organisation: organisations.map((o) => ({
          organisation_id: o.organisation_id,
          name: o.name,
          hours: o.hours
        }))
      } satisfies HoursReport
    })

    const membersReport = Effect.fn("FunderReports.members")(function*(params: ReportRangeParams) {
      yield* TenantAdmin
      const range = yield* rangeOf(params)
      const figures = yield* Effect.all({
        counts: members.figures(range.period.to),
        joined: memberStats.joinedPerDay(range.monthBuckets),
        traders: ledger.exchangeParticipants(range.period),
        volunteers: volunteering.volunteers(range)
      }, { concurrency: CONCURRENCY })
      const joined = new Map(figures.joined.map((row) => [row.day, row.n]))
      const byMonth = range.months.map((month, i) => ({ month, new_members: joined.get(i) ?? 0 }))
      return {
        from: range.from,
        to: range.to,
        total: figures.counts.total,
        active: new Set([...figures.traders, ...figures.volunteers]).size,
        new_in_period: byMonth.reduce((sum, m) => sum + m.new_members, 0),
        by_status: {
          active: figures.counts.active,
          pending: figures.counts.pending,
          suspended: figures.counts.suspended,
          banned: figures.counts.banned
        },
        by_month: byMonth
      } satisfies MembersReport
    })

    const socialValueConfig = Effect.flatMap(CurrentTenant, (tenant) => config.get(tenant.id, "social_value"))

    /** The social value of a resolved range (the export writes the same figures). */
    const socialValueOf = (range: ReportRange): Effect.Effect<SocialValueReport, never, CurrentTenant> =>
      Effect.gen(function*() {
        const [byMonth, setting] = yield* Effect.all([monthly(range), socialValueConfig], { concurrency: 2 })
        const total = totalOf(byMonth)
        return {
          hours: hoursOf(total),
          hourly_value: setting.hourly_value,
          currency: setting.currency,
          value: Math.round(total * setting.hourly_value) / 100,
          from: range.from,
          to: range.to
        }
      })

    const socialValue = Effect.fn("FunderReports.socialValue")(function*(params: ReportRangeParams) {
      yield* TenantAdmin
      return yield* socialValueOf(yield* rangeOf(params))
    })

    /** The given keys merged over the stored setting and stored; answers the whole setting. */
    const updateSocialValueConfig = Effect.fn("FunderReports.updateSocialValueConfig")(
      function*(input: SocialValueConfigInput) {
        const actor = yield* TenantAdmin
        const tenant = yield* CurrentTenant
        const merged: SocialValueConfig = { ...(yield* socialValueConfig), ...input }
        yield* config.store(tenant.id, "social_value", merged, actor.userId)
        return merged
      }
    )

    return {
      rangeOf,
      monthly,
      hours,
      members: membersReport,
      socialValue,
      socialValueOf,
      updateSocialValueConfig
    } as const
  })
}) {}
