import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError } from "../http/ApiError.js"
import { CalendarDate } from "../http/CalendarDate.js"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

/** The longest range `GET /admin/dashboard/trends` answers, in days (a leap year). */
export const MAX_TREND_DAYS = 366

/** Days `GET /admin/dashboard/trends` covers when `from` is not given. */
export const DEFAULT_TREND_DAYS = 30

const Count = Schema.Int.pipe(Schema.nonNegative())
const Hours = Schema.Number.pipe(Schema.nonNegative())

const described = <A, I>(schema: Schema.Schema<A, I>, description: string): Schema.Schema<A, I> =>
  schema.annotations({ description })

/**
 * The figures the ledger counts as exchanges: member-to-member transfers and event check-in payments. Grants,
 * deposits, adjustments, auto-pay and federated transfers are not exchanges between this community's members.
 */
const EXCHANGES = "member-to-member exchanges (transfers and event check-in payments)"

/** `GET /api/v2/admin/dashboard/stats` (decisions D17), computed live for the request's community. */
export const DashboardStats = Schema.Struct({
  members: Schema.Struct({
    total: described(Count, "Members who have not been erased"),
    active: described(Count, "Members with status active"),
    pending: described(Count, "Members awaiting approval"),
    suspended: described(Count, "Members suspended or banned")
  }),
  listings: Schema.Struct({
    active: described(Count, "Listings members can see"),
    pending: described(Count, "Listings awaiting moderation")
  }),
  transactions: Schema.Struct({
    this_month: described(Count, `Ledger ${EXCHANGES} this calendar month, in the community's time zone`),
    hours_this_month: described(Hours, "The hours those exchanges moved")
  }),
  events: Schema.Struct({
    upcoming: described(Count, "Events not cancelled that have not started yet (each occurrence of a series counts)")
  }),
  reports: Schema.Struct({ open: described(Count, "Member reports not yet resolved or dismissed") }),
  approvals: Schema.Struct({
    pending: described(Count, "Members awaiting approval + listings awaiting moderation + groups awaiting review")
  })
})
export type DashboardStats = typeof DashboardStats.Type

/** `?from=&to=` of `GET /api/v2/admin/dashboard/trends`. */
export const TrendsParams = Schema.Struct({
  from: Schema.optional(CalendarDate).annotations({
    description: `First day (YYYY-MM-DD); default ${DEFAULT_TREND_DAYS - 1} days before \`to\``
  }),
  to: Schema.optional(CalendarDate).annotations({
    description: "Last day (YYYY-MM-DD), included; default today in the community's time zone"
  })
})
export type TrendsParams = typeof TrendsParams.Type

/** One day of the series, in the community's time zone; days without activity have zeros. */
export const TrendDay = Schema.Struct({
  date: described(CalendarDate, "The day (YYYY-MM-DD) in the community's time zone"),
  members_joined: described(Count, "Accounts created that day"),
  listings_created: described(Count, "Listings created that day"),
  transactions: described(Count, `Ledger ${EXCHANGES} that day`),
  hours: described(Hours, "The hours those exchanges moved"),
  events_starting: described(Count, "Events not cancelled that start that day"),
  reports_opened: described(Count, "Member reports filed that day")
})
export type TrendDay = typeof TrendDay.Type

export const DashboardTrends = Schema.Struct({
  from: CalendarDate,
  to: CalendarDate,
  days: Schema.Array(TrendDay).annotations({ description: "One entry per day from `from` to `to`, in order" })
})
export type DashboardTrends = typeof DashboardTrends.Type

/** The community's figures at a glance: tenant admins (role `admin`) and platform super-admins. */
export class AdminDashboardApi extends HttpApiGroup.make("adminDashboard")
  .annotate(OpenApi.Title, "Admin: dashboard")
  .annotate(OpenApi.Description, "A community's figures, computed live: tenant admins and platform super-admins")
  .add(
    HttpApiEndpoint.get("stats", "/api/v2/admin/dashboard/stats")
      .annotate(OpenApi.Summary, "Current figures")
      .addSuccess(DataEnvelope(DashboardStats))
      .addError(httpError(Forbidden))
      .annotate(OpenApi.Description, "Members by status, listings, this month's exchanges, events, reports, approvals")
  )
  .add(
    HttpApiEndpoint.get("trends", "/api/v2/admin/dashboard/trends")
      .annotate(OpenApi.Summary, "Daily series")
      .setUrlParams(TrendsParams)
      .addSuccess(DataEnvelope(DashboardTrends))
      .addError(httpError(Forbidden))
      .annotate(
        OpenApi.Description,
        `Per day of the range (at most ${MAX_TREND_DAYS} days; default the last ${DEFAULT_TREND_DAYS}): joins, ` +
          "listings, exchanges and their hours, events starting, reports filed. `from` after `to` or a longer range " +
          "is 422."
      )
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
