import { MAX_RECURRING_OCCURRENCES, type ValidationIssue } from "@timebank/domain"
import { Either } from "effect"
import { DateTime, IANAZone, type Zone } from "luxon"
import type { Options as RRuleOptions, Weekday as RRuleWeekday } from "rrule"
import rrulePackage from "rrule"

// rrule ships CommonJS: Node's ESM loader sees only its default export.
const { RRule } = rrulePackage

/**
 * Recurrence expansion (spec "Recurrence rule", "Limits"): a template's start, the community's time zone and a rule
 * become the occurrence start instants. Pure: the clock comes in as `now`. Times are wall-clock times in the zone, so
 * a 10:00 event stays 10:00 local across a DST change (its UTC instant moves). Custom rules are RFC 5545 RRULEs,
 * parsed and expanded by the `rrule` library; the spec's own rules (52, one year, month-end clamp) are the small
 * functions below and apply to every frequency.
 */

export const MAX_OCCURRENCES = MAX_RECURRING_OCCURRENCES

export const WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"] as const
export type Weekday = typeof WEEKDAYS[number]

/** `monday`..`sunday` or `mon`..`sun`, any case; anything else is not a day. */
export const parseWeekday = (name: string): Weekday | undefined => {
  const key = name.trim().toLowerCase()
  return WEEKDAYS.find((day) => day === key || day.slice(0, 3) === key)
}

/** Day names in week order without repeats, or the issue naming the first that is not a day. */
export const parseWeekdays = (names: ReadonlyArray<string>): Either.Either<ReadonlyArray<Weekday>, ValidationIssue> => {
  const days = new Set<Weekday>()
  for (const name of names) {
    const day = parseWeekday(name)
    if (day === undefined) {
      return Either.left({ field: "recurrence_days", message: `"${name}" is not a day name (monday..sunday)` })
    }
    days.add(day)
  }
  return Either.right(WEEKDAYS.filter((day) => days.has(day)))
}

/** Spec "Limits": at most 52 occurrences; no count means as many as the limits allow. */
export const clampOccurrenceCount = (count: number | undefined): number =>
  Math.max(1, Math.min(count ?? MAX_OCCURRENCES, MAX_OCCURRENCES))

export const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month, 0)).getUTCDate()

/** Spec "Limits": a monthly (or yearly) anchor day, clamped to the month's last day (31 → 30 April, 28/29 Feb). */
export const clampDayOfMonth = (year: number, month: number, day: number): number =>
  Math.min(day, daysInMonth(year, month))

/** Spec "Limits": generation stops one year from now (inclusive), counted in the community's zone. */
export const horizonOf = (now: Date, zone: string): DateTime => DateTime.fromJSDate(now, { zone }).plus({ years: 1 })

/** The zone to compute in: the community's, or UTC when it is not a zone luxon knows (it is checked on input). */
export const resolveZone = (zone: string): string => (IANAZone.isValidZone(zone) ? zone : "UTC")

export type RecurrenceRule =
  | { readonly frequency: "daily"; readonly interval: number }
  | { readonly frequency: "weekly"; readonly interval: number; readonly days: ReadonlyArray<Weekday> }
  | { readonly frequency: "monthly"; readonly interval: number; readonly dayOfMonth?: number | undefined }
  | { readonly frequency: "yearly"; readonly interval: number }
  | { readonly frequency: "custom"; readonly rrule: string }

export type RecurrenceEnds =
  | { readonly type: "after_count"; readonly count?: number | undefined }
  /** `YYYY-MM-DD`, inclusive, a date in the community's zone. */
  | { readonly type: "on_date"; readonly date: string }

export interface ExpansionInput {
  /** The template's start as sent. */
  readonly start: Date
  readonly timezone: string
  readonly now: Date
  readonly rule: RecurrenceRule
  readonly ends: RecurrenceEnds
}

export interface Occurrence {
  readonly start: Date
  /** `YYYY-MM-DD` in the community's zone. */
  readonly date: string
}

export interface Expansion {
  /** In order; the first is the series' first date (the template's start). */
  readonly occurrences: ReadonlyArray<Occurrence>
  /** The equivalent RFC 5545 RRULE (no `RRULE:` prefix) with DTSTART = the first occurrence in the zone. */
  readonly rrule: string
  /** Weekly: the days used; else null. */
  readonly days: ReadonlyArray<Weekday> | null
  /** Monthly: the anchor day used; else null. */
  readonly dayOfMonth: number | null
  /** The interval used (custom: the RRULE's). */
  readonly interval: number
  /** The zone the wall-clock times are in (the community's, or UTC if it is not a known zone). */
  readonly timezone: string
}

// --- custom rules: parsed by the rrule library, then held to what a community event may be ----------------------

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

// --- the spec's own frequencies -------------------------------------------------------------------------------------

const timeOf = (base: DateTime) => ({
  hour: base.hour,
  minute: base.minute,
  second: base.second,
  millisecond: base.millisecond
})

/** Wall-clock `base` time on a calendar day of the zone (a time the clocks skip moves forward, as luxon does). */
const onDay = (base: DateTime, year: number, month: number, day: number) =>
  DateTime.fromObject({ year, month, day, ...timeOf(base) }, { zone: base.zone })

function* daily(base: DateTime, interval: number) {
  for (let k = 0;; k++) yield base.plus({ days: k * interval })
}

function* weekly(base: DateTime, interval: number, days: ReadonlyArray<Weekday>) {
  const monday = base.startOf("week")
  const offsets = days.map((day) => WEEKDAYS.indexOf(day))
  for (let k = 0;; k++) {
    const week = monday.plus({ weeks: k * interval })
    for (const offset of offsets) {
      const date = week.plus({ days: offset })
      const candidate = onDay(base, date.year, date.month, date.day)
      if (candidate >= base) yield candidate
    }
  }
}

function* monthly(base: DateTime, interval: number, anchor: number) {
  for (let k = 0;; k++) {
    const month = base.startOf("month").plus({ months: k * interval })
    const candidate = onDay(base, month.year, month.month, clampDayOfMonth(month.year, month.month, anchor))
    if (candidate >= base) yield candidate
  }
}

function* yearly(base: DateTime, interval: number) {
  for (let k = 0;; k++) {
    const year = base.year + k * interval
    yield onDay(base, year, base.month, clampDayOfMonth(year, base.month, base.day))
  }
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
const custom = (base: DateTime, parsed: ParsedRRule, limit: DateTime): ReadonlyArray<DateTime> => {
  const until = parsed.until instanceof Date ? toFloating(DateTime.fromJSDate(parsed.until, { zone: base.zone })) : null
  const rule = new RRule({ ...parsed, dtstart: toFloating(base), until, tzid: null })
  const floatingLimit = toFloating(limit.plus({ days: 1 }))
  return rule.all((date, i) => i <= MAX_OCCURRENCES && date <= floatingLimit).map((d) => fromFloating(d, base.zone))
}

interface Limits {
  readonly count: number
  readonly horizon: DateTime
  readonly lastDate: string | null
}

/** Spec "Limits" on an ordered stream of candidates: stop at the count, past the horizon, or after the end date. */
export const selectOccurrences = (candidates: Iterable<DateTime>, limits: Limits): ReadonlyArray<DateTime> => {
  const out: Array<DateTime> = []
  if (limits.count <= 0) return out
  for (const candidate of candidates) {
    if (candidate > limits.horizon) break
    if (limits.lastDate !== null && candidate.toISODate()! > limits.lastDate) break
    out.push(candidate)
    if (out.length >= limits.count) break
  }
  return out
}

const RRULE_DAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const

/** Month days for an anchor that months clamp: the last of `28..anchor` that the month has. */
const monthDayParts = (anchor: number) =>
  anchor <= 28
    ? [`BYMONTHDAY=${anchor}`]
    : [`BYMONTHDAY=${Array.from({ length: anchor - 27 }, (_, i) => 28 + i).join(",")}`, "BYSETPOS=-1"]

/**
 * The RRULE equivalent to a rule of the spec's own frequencies, with DTSTART = its first occurrence in the zone, so
 * that calendars (ICS export) expand exactly the rows we made. `COUNT` is the number of occurrences made.
 */
export const toRRule = (
  rule: Exclude<RecurrenceRule, { frequency: "custom" }>,
  first: { readonly month: number; readonly day: number },
  count: number,
  resolved: { readonly days: ReadonlyArray<Weekday> | null; readonly dayOfMonth: number | null } = {
    days: null,
    dayOfMonth: null
  }
): string => {
  const parts = [`FREQ=${rule.frequency.toUpperCase()}`]
  if (rule.interval > 1) parts.push(`INTERVAL=${rule.interval}`)
  if (rule.frequency === "weekly") {
    const days = resolved.days ?? rule.days
    parts.push(`BYDAY=${days.map((day) => RRULE_DAYS[WEEKDAYS.indexOf(day)]).join(",")}`, "WKST=MO")
  }
  if (rule.frequency === "monthly") parts.push(...monthDayParts(resolved.dayOfMonth ?? rule.dayOfMonth ?? first.day))
  if (rule.frequency === "yearly") parts.push(`BYMONTH=${first.month}`, ...monthDayParts(first.day))
  parts.push(`COUNT=${count}`)
  return parts.join(";")
}

/** A custom rule as stored: the library's own spelling, its end replaced by the COUNT of occurrences made. */
const customRRule = (parsed: ParsedRRule, count: number) => {
  const { count: _count, dtstart: _dtstart, tzid: _tzid, until: _until, ...rest } = parsed
  return RRule.optionsToString({ ...rest, count }).replace(/^RRULE:/, "")
}

/**
 * The occurrences of a series (spec "Limits"): at most 52 (and at most the end rule's count), none after the end
 * date (inclusive) nor later than one year from `now`; monthly and yearly dates clamp to the month's last day; times
 * are wall-clock times in `timezone`. Every problem of the rule comes back as a 422 issue.
 */
export const expandRecurrence = (
  input: ExpansionInput
): Either.Either<Expansion, ReadonlyArray<ValidationIssue>> => {
  const zone = resolveZone(input.timezone)
  const base = DateTime.fromJSDate(input.start, { zone })
  const horizon = horizonOf(input.now, zone)
  const issues: Array<ValidationIssue> = []
  const startDate = base.toISODate()!
  if (input.ends.type === "on_date" && input.ends.date < startDate) {
    issues.push({ field: "recurrence_ends_on_date", message: `must not be before the start date (${startDate})` })
  }
  const parsed = input.rule.frequency === "custom" ? parseRRule(input.rule.rrule) : undefined
  if (parsed !== undefined && Either.isLeft(parsed)) issues.push(parsed.left)
  if (issues.length > 0) return Either.left(issues)

  const limits: Limits = {
    count: input.ends.type === "after_count" ? clampOccurrenceCount(input.ends.count) : MAX_OCCURRENCES,
    horizon,
    lastDate: input.ends.type === "on_date" ? input.ends.date : null
  }
  const rule = input.rule
  const days = rule.frequency === "weekly"
    ? (rule.days.length > 0 ? rule.days : [WEEKDAYS[base.weekday - 1]!])
    : null
  const dayOfMonth = rule.frequency === "monthly" ? rule.dayOfMonth ?? base.day : null
  const candidates: Iterable<DateTime> = rule.frequency === "daily"
    ? daily(base, rule.interval)
    : rule.frequency === "weekly"
    ? weekly(base, rule.interval, days!)
    : rule.frequency === "monthly"
    ? monthly(base, rule.interval, dayOfMonth!)
    : rule.frequency === "yearly"
    ? yearly(base, rule.interval)
    : custom(base, Either.getOrThrow(parsed!), horizon)
  const selected = selectOccurrences(candidates, limits)

  const first = selected[0]
  if (first === undefined) {
    return Either.left([
      base > horizon
        ? { field: "start_time", message: "a recurring event must start within one year" }
        : input.ends.type === "on_date"
        ? { field: "recurrence_ends_on_date", message: "no occurrence falls on or before this date" }
        : { field: "rrule", message: "the rule has no occurrence within one year" }
    ])
  }
  const occurrences = selected.map((local) => ({ start: local.toJSDate(), date: local.toISODate()! }))
  return Either.right({
    occurrences,
    rrule: rule.frequency === "custom"
      ? customRRule(Either.getOrThrow(parsed!), occurrences.length)
      : toRRule(rule, first, occurrences.length, { days, dayOfMonth }),
    days,
    dayOfMonth,
    interval: rule.frequency === "custom" ? Either.getOrThrow(parsed!).interval ?? 1 : rule.interval,
    timezone: zone
  })
}
