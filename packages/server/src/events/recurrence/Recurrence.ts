import { MAX_RECURRING_OCCURRENCES, type ValidationIssue } from "@timebank/domain"
import { Either } from "effect"
import { DateTime, IANAZone } from "luxon"
import { customCandidates, customRRule, parseRRule } from "./CustomRule.js"

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
    : customCandidates(base, Either.getOrThrow(parsed!), horizon)
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
