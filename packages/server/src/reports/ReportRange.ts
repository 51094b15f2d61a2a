import { DEFAULT_REPORT_MONTHS, MAX_REPORT_MONTHS, type ReportRangeParams, ValidationFailed } from "@timebank/domain"
import { DateTime, Either, Option } from "effect"
import type { DayRange, Period } from "../platform/DaySeries.js"

/**
 * The calendar of funder reports: a range of days of the community's time zone, its months, and the instants that
 * bound them (what the owners' aggregates filter on). Pure, for tests.
 */
export interface ReportRange {
  /** First and last day, `YYYY-MM-DD`, both included. */
  readonly from: string
  readonly to: string
  /** From the start of `from` to the start of the day after `to`, in the community's zone. */
  readonly period: Period
  /** The months the range touches, `YYYY-MM`, in order. */
  readonly months: ReadonlyArray<string>
  /** One bucket per month: the first starts at `period.from`, each other at its month's first midnight. */
  readonly monthBuckets: DayRange
}

const zoneOf = (timeZone: string): DateTime.TimeZone =>
  Option.getOrElse(DateTime.zoneMakeNamed(timeZone), () => DateTime.zoneMakeOffset(0))

const parts = (date: string) => {
  const [year, month, day] = date.split("-").map(Number)
  return { year: year!, month: month!, day: day! }
}

/** The instant a `YYYY-MM-DD` day starts (local midnight) in `zone`. */
const startOfDay = (date: string, zone: DateTime.TimeZone): Date =>
  DateTime.toDateUtc(DateTime.unsafeMakeZoned(parts(date), { timeZone: zone, adjustForTimeZone: true }))

const pad = (n: number) => String(n).padStart(2, "0")

/** `YYYY-MM` of a month index (months since year 0). */
const monthLabel = (index: number) => `${String(Math.floor(index / 12)).padStart(4, "0")}-${pad(index % 12 + 1)}`
const monthIndex = (date: string) => parts(date).year * 12 + parts(date).month - 1

/** `date` moved by `days`. */
export const shiftDay = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** Today (`YYYY-MM-DD`) in `timeZone`. */
export const localToday = (timeZone: string, now: Date): string =>
  DateTime.formatIsoDate(DateTime.unsafeMakeZoned(now, { timeZone: zoneOf(timeZone) }))

/**
 * The range `?from&to` asks for: `to` defaults to today, `from` to the first day of the month eleven months
 * before `to`'s (twelve calendar months). Backwards, or over {@link MAX_REPORT_MONTHS} months: 422 on the
 * parameter the caller sent (`to` when both were sent).
 */
export const reportRange = (
  params: ReportRangeParams,
  timeZone: string,
  now: Date
): Either.Either<ReportRange, ValidationFailed> => {
  const to = params.to ?? localToday(timeZone, now)
  const from = params.from ?? `${monthLabel(monthIndex(to) - (DEFAULT_REPORT_MONTHS - 1))}-01`
  const field = params.to === undefined ? "from" : "to"
  if (from > to) {
    return Either.left(
      ValidationFailed.field(field, params.to === undefined ? "must not be after today" : "must not be before from")
    )
  }
  const first = monthIndex(from)
  const count = monthIndex(to) - first + 1
  if (count > MAX_REPORT_MONTHS) {
    return Either.left(ValidationFailed.field(field, `the range must cover at most ${MAX_REPORT_MONTHS} months`))
  }
  const zone = zoneOf(timeZone)
  const months = Array.from({ length: count }, (_, i) => monthLabel(first + i))
  const period = { from: startOfDay(from, zone), to: startOfDay(shiftDay(to, 1), zone) }
  const starts = months.map((month, i) => i === 0 ? period.from : startOfDay(`${month}-01`, zone))
  return Either.right({ from, to, period, months, monthBuckets: { starts, end: period.to } })
}
