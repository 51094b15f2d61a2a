import { MAX_TREND_DAYS, ValidationFailed } from "@timebank/domain"
import { DateTime, Either, Option } from "effect"
import type { DayRange, Period } from "../../platform/DaySeries.js"

/**
 * The dashboard's calendar: days and months of the community's time zone, as instants the owners' aggregates
 * filter on. Pure, for tests.
 */

const zoneOf = (timeZone: string): DateTime.TimeZone =>
  Option.getOrElse(DateTime.zoneMakeNamed(timeZone), () => DateTime.zoneMakeOffset(0))

/** The start (local midnight) of a `YYYY-MM-DD` day in `zone`. */
const startOfDay = (date: string, zone: DateTime.TimeZone): DateTime.Zoned => {
  const [year, month, day] = date.split("-").map(Number)
  return DateTime.unsafeMakeZoned({ year: year!, month: month!, day: day! }, {
    timeZone: zone,
    adjustForTimeZone: true
  })
}

/** Today (`YYYY-MM-DD`) in `timeZone`. */
export const todayIn = (timeZone: string, now: Date): string =>
  DateTime.formatIsoDate(DateTime.unsafeMakeZoned(now, { timeZone: zoneOf(timeZone) }))

/** The calendar month around `now` in `timeZone`, from its first local midnight to the next month's. */
export const monthOf = (timeZone: string, now: Date): Period => {
  const start = DateTime.startOf(DateTime.unsafeMakeZoned(now, { timeZone: zoneOf(timeZone) }), "month")
  return { from: DateTime.toDateUtc(start), to: DateTime.toDateUtc(DateTime.add(start, { months: 1 })) }
}

/** Days from `from` to `to` (both `YYYY-MM-DD`), both included. */
export const daysBetween = (from: string, to: string): number =>
  Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000) + 1

/** `date` moved by `days` (`YYYY-MM-DD`). */
export const shiftDate = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/** The days of a trends request and the instants bounding them in the community's zone. */
export interface TrendDays {
  readonly from: string
  readonly to: string
  readonly dates: ReadonlyArray<string>
  readonly range: DayRange
}

/**
 * The days `?from&to` asks for: `to` defaults to today, `from` to 29 days before `to`. A backwards or too long
 * range is 422 on the parameter the caller sent (`to` when both were sent).
 */
export const trendDays = (
  params: { readonly from?: string | undefined; readonly to?: string | undefined },
  timeZone: string,
  now: Date,
  defaultDays: number
): Either.Either<TrendDays, ValidationFailed> => {
  const to = params.to ?? todayIn(timeZone, now)
  const from = params.from ?? shiftDate(to, 1 - defaultDays)
  const field = params.to === undefined ? "from" : "to"
  const count = daysBetween(from, to)
  if (count < 1) {
    return Either.left(ValidationFailed.field(
      field,
      params.to === undefined
        ? "must not be after today"
        : "must not be before from"
    ))
  }
  if (count > MAX_TREND_DAYS) {
    return Either.left(ValidationFailed.field(field, `the range must be at most ${MAX_TREND_DAYS} days`))
  }
  const zone = zoneOf(timeZone)
  const dates = Array.from({ length: count }, (_, i) => shiftDate(from, i))
  const starts = dates.map((date) => DateTime.toDateUtc(startOfDay(date, zone)))
  const end = DateTime.toDateUtc(startOfDay(shiftDate(to, 1), zone))
  return Either.right({ from, to, dates, range: { starts, end } })
}
