import { ValidationFailed } from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"

/** The instant local midnight starts `date` (`YYYY-MM-DD`) in `timeZone` (UTC for an unknown zone). */
export const startOfDayIn = (date: string, timeZone: string): Date => {
  const zone = Option.getOrElse(DateTime.zoneMakeNamed(timeZone), () => DateTime.zoneMakeOffset(0))
  const [year, month, day] = date.split("-").map(Number)
  return DateTime.toDateUtc(
    DateTime.unsafeMakeZoned({ year: year!, month: month!, day: day! }, { timeZone: zone, adjustForTimeZone: true })
  )
}

/** `date` moved by `days` (`YYYY-MM-DD`). */
const shiftDate = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)

/**
 * `?from&to` (days, both included, in the community's time zone) as instants: `from` from its local midnight,
 * `before` the local midnight after `to`. `to` before `from` → 422 on `to`.
 */
export const periodOf = (
  params: { readonly from?: string | undefined; readonly to?: string | undefined },
  timeZone: string
): Effect.Effect<{ readonly from?: Date | undefined; readonly before?: Date | undefined }, ValidationFailed> => {
  if (params.from !== undefined && params.to !== undefined && params.to < params.from) {
    return Effect.fail(ValidationFailed.field("to", "must not be before from"))
  }
  return Effect.succeed({
    from: params.from === undefined ? undefined : startOfDayIn(params.from, timeZone),
    before: params.to === undefined ? undefined : startOfDayIn(shiftDate(params.to, 1), timeZone)
  })
}
