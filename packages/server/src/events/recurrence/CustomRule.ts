import { MAX_RECURRING_OCCURRENCES, type ValidationIssue } from "@timebank/domain"
import { Either } from "effect"
import { DateTime, type Zone } from "luxon"
import type { Options as RRuleOptions, Weekday as RRuleWeekday } from "rrule"
import rrulePackage from "rrule"

// rrule ships CommonJS: Node's ESM loader sees only its default export.
const { RRule } = rrulePackage

/**
 * Custom recurrence rules (`recurrence_frequency: custom`): RFC 5545 RRULEs parsed and expanded by the `rrule`
 * library, held to what a community event may be. Pure.
 */

const FREQUENCIES: Record<number, string> = {
  [RRule.YEARLY]: "YEARLY",
  [RRule.MONTHLY]: "MONTHLY",
  [RRule.WEEKLY]: "WEEKLY",
  [RRule.DAILY]: "DAILY"
}
/** Parts a custom rule may use. Sub-daily frequencies and the rarely used parts are refused (see below). */
const ALLOWED = new Set([
  "freq",
  "interval",
  "count",
  "until",
  "wkst",
  "byweekday",
  "bymonthday",
  "bymonth",
  "bysetpos"
])
/**
 * Daily and weekly rules may only narrow by weekday: the library walks period by period until year 9999 when a rule
 * never matches, which at daily steps costs seconds of CPU (e.g. `FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30`); a weekday
 * filter always matches within a week. Monthly and yearly walks stay well under a second.
 */
const DAILY_OR_WEEKLY_ALLOWED = new Set(["freq", "interval", "count", "until", "wkst", "byweekday"])

export type ParsedRRule = Partial<RRuleOptions>

const rruleIssue = (message: string): ValidationIssue => ({ field: "rrule", message })

const asArray = <A>(value: A | ReadonlyArray<A> | null | undefined): ReadonlyArray<A> =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value as A]

const isIntIn = (value: unknown, min: number, max: number) =>
  typeof value === "number" && Number.isInteger(value) && value >= min && value <= max && value !== 0

/** An RRULE (with or without the `RRULE:` prefix) parsed by `rrule`, or the 422 issue of field `rrule`. */
export const parseRRule = (text: string): Either.Either<ParsedRRule, ValidationIssue> => {
  // RFC 5545 names and values are case-insensitive; the library reads upper case only.
  const body = text.trim().toUpperCase().replace(/^RRULE:/, "")
  if (body === "" || /[\r\n:]/.test(body)) {
    return Either.left(rruleIssue("must be one RRULE such as FREQ=WEEKLY;BYDAY=MO"))
  }
  let parsed: ParsedRRule
  try {
    parsed = RRule.parseString(body)
  } catch (error) {
    return Either.left(rruleIssue(`is not a valid RRULE: ${error instanceof Error ? error.message : String(error)}`))
  }
  const entries = Object.entries(parsed).filter(([, value]) => value !== undefined && value !== null)
  if (parsed.freq === undefined || parsed.freq === null) return Either.left(rruleIssue("needs FREQ"))
  if (!(parsed.freq in FREQUENCIES)) return Either.left(rruleIssue("FREQ must be DAILY, WEEKLY, MONTHLY or YEARLY"))
  const allowed = parsed.freq === RRule.DAILY || parsed.freq === RRule.WEEKLY ? DAILY_OR_WEEKLY_ALLOWED : ALLOWED
  const refused = entries.map(([key]) => key).filter((key) => !allowed.has(key))
  if (refused.length > 0) {
    return Either.left(rruleIssue(`does not support ${refused.map((k) => k.toUpperCase()).join(", ")} here`))
  }
  if (parsed.interval !== undefined && !isIntIn(parsed.interval, 1, 1000)) {
    return Either.left(rruleIssue("INTERVAL must be a whole number from 1 to 1000"))
  }
  if (parsed.count !== undefined && parsed.count !== null && !isIntIn(parsed.count, 1, 100_000)) {
    return Either.left(rruleIssue("COUNT must be a whole number of at least 1"))
  }
  if (parsed.until instanceof Date && Number.isNaN(parsed.until.getTime())) {
    return Either.left(rruleIssue("UNTIL is not a date"))
  }
  const weekdays = asArray(parsed.byweekday as RRuleWeekday | ReadonlyArray<RRuleWeekday> | undefined)
  if (weekdays.some((day) => day === undefined || day === null)) return Either.left(rruleIssue("BYDAY names no day"))
  if (
    (parsed.freq === RRule.DAILY || parsed.freq === RRule.WEEKLY) &&
    weekdays.some((day) => typeof day === "object" && day.n !== undefined && day.n !== 0)
  ) return Either.left(rruleIssue("BYDAY takes no ordinal with DAILY or WEEKLY"))
  if ("wkst" in parsed && (parsed.wkst === undefined || parsed.wkst === null)) {
    return Either.left(rruleIssue("WKST names no day"))
  }
  if (!asArray(parsed.bymonthday).every((d) => isIntIn(d, -31, 31))) {
    return Either.left(rruleIssue("BYMONTHDAY must be days from -31 to 31"))
  }
  if (!asArray(parsed.bymonth).every((m) => isIntIn(m, 1, 12))) {
    return Either.left(rruleIssue("BYMONTH must be months from 1 to 12"))
  }
  if (!asArray(parsed.bysetpos).every((p) => isIntIn(p, -366, 366))) {
    return Either.left(rruleIssue("BYSETPOS must be positions from -366 to 366"))
  }
  return Either.right(parsed)
}

/** Wall-clock time as the "floating" UTC Date the rrule library computes with. */
const toFloating = (local: DateTime) =>
  new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second, local.millisecond))

const fromFloating = (date: Date, zone: Zone) =>
  DateTime.fromObject({
    year: date.getUTCFullYear(),
    month: date.getUTCMonth() + 1,
    day: date.getUTCDate(),
    hour: date.getUTCHours(),
    minute: date.getUTCMinutes(),
    second: date.getUTCSeconds(),
    millisecond: date.getUTCMilliseconds()
  }, { zone })

/** A custom rule's candidates: expanded on wall-clock time by the library, bounded well past the limits. */
export const customCandidates = (base: DateTime, parsed: ParsedRRule, limit: DateTime): ReadonlyArray<DateTime> => {
  const until = parsed.until instanceof Date ? toFloating(DateTime.fromJSDate(parsed.until, { zone: base.zone })) : null
  const rule = new RRule({ ...parsed, dtstart: toFloating(base), until, tzid: null })
  const floatingLimit = toFloating(limit.plus({ days: 1 }))
  return rule.all((date, i) => i <= MAX_RECURRING_OCCURRENCES && date <= floatingLimit).map((d) =>
    fromFloating(d, base.zone)
  )
}

/** A custom rule as stored: the library's own spelling, its end replaced by the COUNT of occurrences made. */
export const customRRule = (parsed: ParsedRRule, count: number) => {
  const { count: _count, dtstart: _dtstart, tzid: _tzid, until: _until, ...rest } = parsed
  return RRule.optionsToString({ ...rest, count }).replace(/^RRULE:/, "")
}
