import { Schema } from "effect"
import { CalendarDate } from "../http/CalendarDate.js"
import { PATH_PARAM_NOT_FOUND } from "../http/Ids.js"
import { HourlyValue, Iso4217Currency } from "./SocialValue.js"

/** The longest range a funder report covers, in calendar months (ten years). */
export const MAX_REPORT_MONTHS = 120

/** Calendar months a report covers when `from` is not given: this month and the eleven before `to`'s. */
export const DEFAULT_REPORT_MONTHS = 12

/** The category of volunteering hours (they have no listing); an exchange without a categorised listing's. */
export const VOLUNTEERING_CATEGORY = "volunteering"
export const UNCATEGORISED = "uncategorised"

const Hours = Schema.Number.pipe(Schema.nonNegative())
const Count = Schema.Int.pipe(Schema.nonNegative())
const Month = Schema.String.pipe(Schema.pattern(/^\d{4}-\d{2}$/)).annotations({
  description: "A calendar month, YYYY-MM"
})

const described = <A, I>(schema: Schema.Schema<A, I>, description: string): Schema.Schema<A, I> =>
  schema.annotations({ description })

/** `?from=&to=` of every funder report and export: calendar days of the community's time zone, both included. */
export const ReportRangeParams = Schema.Struct({
  from: Schema.optional(CalendarDate).annotations({
    description: `First day (YYYY-MM-DD); default the first day of the ${DEFAULT_REPORT_MONTHS}th month before \`to\``
  }),
  to: Schema.optional(CalendarDate).annotations({
    description: "Last day (YYYY-MM-DD), included; default today in the community's time zone"
  })
})
export type ReportRangeParams = typeof ReportRangeParams.Type

const HOURS = "approved volunteering hours (by the day worked) plus member-to-member exchange hours (transfers " +
  "and event check-in payments; grants, deposits, adjustments, auto-pay and federated transfers excluded)"

/** `GET /api/v2/admin/reports/hours` (decisions D15, D17). */
export const HoursReport = Schema.Struct({
  from: CalendarDate,
  to: CalendarDate,
  total: described(Hours, `Hours given in the range: ${HOURS}`),
  by_month: Schema.Array(Schema.Struct({ month: Month, hours: Hours })).annotations({
    description: "Every month of the range, in order (months without hours have 0)"
  }),
  by_category: Schema.Array(Schema.Struct({ category: Schema.String, hours: Hours })).annotations({
    description: `Exchanges by their listing's category (\`${UNCATEGORISED}\` without one); volunteering hours as ` +
      `\`${VOLUNTEERING_CATEGORY}\`. Most hours first`
  }),
  by_organisation: Schema.Array(Schema.Struct({ organisation_id: Schema.Int, name: Schema.String, hours: Hours }))
    .annotations({ description: "Approved volunteering hours per organisation, most hours first" })
})
export type HoursReport = typeof HoursReport.Type

/** Members by their status today. */
export const MembersByStatus = Schema.Struct({
  active: Count,
  pending: Count,
  suspended: Count,
  banned: Count
})
export type MembersByStatus = typeof MembersByStatus.Type

/** `GET /api/v2/admin/reports/members` (decisions D15, D17). */
export const MembersReport = Schema.Struct({
  from: CalendarDate,
  to: CalendarDate,
  total: described(Count, "Members (not erased) who had joined by the end of the range"),
  active: described(
    Count,
    "Members who took part in the range: sent or received an exchange, or gave approved volunteering hours"
  ),
  new_in_period: described(Count, "Accounts created in the range"),
  by_status: MembersByStatus.annotations({ description: "The `total` members by their status today" }),
  by_month: Schema.Array(Schema.Struct({ month: Month, new_members: Count })).annotations({
    description: "Accounts created per month of the range, in order"
  })
})
export type MembersReport = typeof MembersReport.Type

/** `GET /api/v2/admin/reports/social-value` (decisions D15, D17): hours × the community's hourly value. */
export const SocialValueReport = Schema.Struct({
  hours: described(Hours, "The hours report's total for the range"),
  hourly_value: HourlyValue,
  currency: Iso4217Currency,
  value: described(Hours, "hours × hourly_value, rounded to cents"),
  from: CalendarDate,
  to: CalendarDate
})
export type SocialValueReport = typeof SocialValueReport.Type

/** The CSV exports (decisions D17 "Funder reports"), each with its columns in order. */
export const REPORT_EXPORTS = {
  members: {
    label: "Members",
    description: "Members (not erased) who had joined by the end of the range, with status and balance today",
    columns: ["id", "first_name", "last_name", "email", "role", "status", "balance", "joined_at"]
  },
  transactions: {
    label: "Transactions",
    description: "Every ledger transaction of the range, oldest first; parties as member:<id>, " +
      "organisation:<id>, partner:<id> or treasury",
    columns: ["id", "created_at", "type", "from", "to", "amount", "description"]
  },
  hours: {
    label: "Hours",
    description: "Approved volunteering hours per organisation and month, then member-to-member exchange hours " +
      "per month (organisation \"Member exchanges\", no id)",
    columns: ["organisation_id", "organisation", "month", "hours"]
  },
  events: {
    label: "Events",
    description: "Events starting in the range (series templates left out), with RSVPs going (attended " +
      "included) and attended",
    columns: ["id", "title", "start_time", "end_time", "location", "going", "attended", "status"]
  },
  organisations: {
    label: "Organisations",
    description: "Every organisation, with its owner's e-mail and the volunteers and approved hours of the range",
    columns: ["id", "name", "status", "owner_email", "volunteers", "hours"]
  },
  "social-value": {
    label: "Social value",
    description: "The range's hours valued at the community's hourly value",
    columns: ["from", "to", "hours", "hourly_value", "currency", "value"]
  }
} as const

export const ReportExportType = Schema.Literal(
  "members",
  "transactions",
  "hours",
  "events",
  "organisations",
  "social-value"
)
export type ReportExportType = typeof ReportExportType.Type

/** A type that is not one of ours names nothing: 404 `NOT_FOUND`. */
export const ReportExportPath = Schema.Struct({
  type: ReportExportType.annotations({ message: () => ({ message: PATH_PARAM_NOT_FOUND, override: true }) })
})

/** One entry of `GET /api/v2/admin/reports/export-types`. */
export const ReportExportDescription = Schema.Struct({
  type: ReportExportType,
  label: Schema.String,
  description: Schema.String,
  columns: Schema.Array(Schema.String).annotations({ description: "The CSV header row, in order" })
})
export type ReportExportDescription = typeof ReportExportDescription.Type
