import ical, { ICalCalendarMethod, ICalEventStatus } from "ical-generator"
import { DateTime, FixedOffsetZone } from "luxon"
import rrulePkg from "rrule"

// rrule ships CommonJS without named ESM exports.
const { RRule, RRuleSet } = rrulePkg

/** What an iCalendar VEVENT shows of an event (no e-mail addresses: organisers are named, not addressed). */
export interface CalendarEvent {
  readonly id: number
  readonly title: string
  readonly description: string
  readonly start: Date
  readonly end: Date | null
  readonly location: string | null
  readonly onlineLink: string | null
  readonly cancelled: boolean
  readonly organiserName: string
  readonly createdAt: Date
  readonly updatedAt: Date
}

/** One occurrence row of a series: its start, and whether it still takes place (active and linked). */
export interface SeriesOccurrence {
  readonly start: Date
  readonly active: boolean
}

/** The recurrence of a template: its stored RRULE, the zone it was expanded in, and its occurrence rows. */
export interface SeriesRecurrence {
  readonly rrule: string
  readonly timezone: string
  readonly occurrences: ReadonlyArray<SeriesOccurrence>
}

export interface CalendarEntry {
  readonly event: CalendarEvent
  /** Present for a recurring template: exported as one VEVENT with RRULE (and EXDATE / RDATE). */
  readonly series?: SeriesRecurrence | undefined
}

export interface CalendarOptions {
  readonly tenantSlug: string
  readonly calendarName: string
  /** DTSTAMP of every VEVENT. */
  readonly now: Date
}

/** RFC 5545 media type of what `renderCalendar` returns. */
export const CALENDAR_CONTENT_TYPE = "text/calendar; charset=utf-8"

/** Most instances one series expansion looks at (a series has at most 52 occurrence rows). */
const MAX_SLOTS = 1000

/** Stable across exports and edits, so that calendar clients update the entry instead of adding another. */
export const eventUid = (eventId: number, tenantSlug: string) => `event-${eventId}@${tenantSlug}.timebank`

/**
 * SEQUENCE: whole seconds between creation and the last change — 0 until the first edit, and growing with every
 * later one, so that clients take a re-export as a newer revision. Small enough for clients that read 32 bits.
 */
export const sequenceOf = (createdAt: Date, updatedAt: Date) =>
  Math.max(0, Math.floor((updatedAt.getTime() - createdAt.getTime()) / 1000))

/** The ORGANIZER address: a placeholder that names the community, never the organiser's own e-mail (privacy). */
export const organiserAddress = (tenantSlug: string) => `noreply@${tenantSlug}.timebank`

const isUtc = (zone: string) => zone === "UTC" || zone === "Etc/UTC"

/** The zone's wall-clock time of `instant` written as a UTC date (how the rrule library expands local times). */
const toWall = (instant: Date, zone: string) => {
  const local = DateTime.fromJSDate(instant, { zone })
  return new Date(Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second))
}

/** Back from such a wall-clock date to the instant it is in `zone`. */
const fromWall = (wall: Date, zone: string) =>
  DateTime.fromObject({
    year: wall.getUTCFullYear(),
    month: wall.getUTCMonth() + 1,
    day: wall.getUTCDate(),
    hour: wall.getUTCHours(),
    minute: wall.getUTCMinutes(),
    second: wall.getUTCSeconds()
  }, { zone }).toJSDate()

const toSecond = (d: Date) => Math.floor(d.getTime() / 1000)

const asList = <A>(value: A | ReadonlyArray<A> | null | undefined): ReadonlyArray<A> =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value as A]

/**
 * The stored rule's parts without what the export sets itself (start, zone, end). `null` if it does not parse.
 * A month-end clamp (`BYMONTHDAY=28,29,30,31;BYSETPOS=-1`) becomes its anchor day (`BYMONTHDAY=31`): BYSETPOS
 * without BYDAY is beyond many clients (ical.js ignores it), and the clamped dates come back as RDATEs.
 */
const ruleParts = (text: string) => {
  try {
    const { count: _count, dtstart: _dtstart, tzid: _tzid, until: _until, ...parts } = RRule.parseString(text.trim())
    if (parts.freq === undefined) return null
    const monthDays = asList(parts.bymonthday).filter((d) => d > 0)
    if (asList(parts.bysetpos).length > 0 && asList(parts.byweekday).length === 0 && monthDays.length > 0) {
      const { bysetpos: _bysetpos, ...rest } = parts
      return { ...rest, bymonthday: [Math.max(...monthDays)] }
    }
    return parts
  } catch {
    return null
  }
}

export interface SeriesLines {
  /** RRULE (bounded by UNTIL at the last occurrence row), then RDATE / EXDATE lines, as the rrule library writes them. */
  readonly lines: ReadonlyArray<string>
  /** Instances of the RRULE (DTSTART included) that have no active occurrence row. */
  readonly exdates: ReadonlyArray<Date>
  /** Active occurrence rows the RRULE does not produce. */
  readonly rdates: ReadonlyArray<Date>
}

/**
 * The recurrence lines of a series that starts at `start`: the stored RRULE, expanded in wall-clock time of the
 * series' zone up to the last occurrence row (UNTIL, in UTC), with EXDATE for every instance whose occurrence was
 * cancelled, detached or deleted, and RDATE for an active occurrence the rule would not produce. A client that
 * expands them gets exactly the active occurrence rows. `null` when there is nothing to repeat (no occurrence rows)
 * or the stored rule does not parse; the template is then exported as a single event.
 */
export const seriesLines = (start: Date, series: SeriesRecurrence): SeriesLines | null => {
  const parts = ruleParts(series.rrule)
  if (parts === null || series.occurrences.length === 0) return null
  const zone = series.timezone
  const last = new Date(Math.max(...series.occurrences.map((o) => o.start.getTime())))
  const expansion = new RRule({ ...parts, dtstart: toWall(start, zone), until: toWall(last, zone) })
  // RFC 5545: DTSTART is always the first instance, whether or not the rule produces it.
  const slots = new Map<number, Date>([[toSecond(start), start]])
  for (const wall of expansion.all((_, i) => i < MAX_SLOTS)) {
    const instant = fromWall(wall, zone)
    slots.set(toSecond(instant), instant)
  }
  const active = new Map(series.occurrences.filter((o) => o.active).map((o) => [toSecond(o.start), o.start]))
  const exdates = [...slots].filter(([key]) => !active.has(key)).map(([, d]) => d).sort((a, b) => +a - +b)
  const rdates = [...active].filter(([key]) => !slots.has(key)).map(([, d]) => d).sort((a, b) => +a - +b)

  const set = new RRuleSet()
  set.rrule(new RRule({ ...parts, until: last }))
  // In a zone other than UTC, RDATE/EXDATE carry its TZID and are written as wall-clock times.
  const utc = isUtc(zone)
  if (!utc) set.tzid(zone)
  for (const d of rdates) set.rdate(utc ? d : toWall(d, zone))
  for (const d of exdates) set.exdate(utc ? d : toWall(d, zone))
  return { lines: set.valueOf(), exdates, rdates }
}

const offsetText = (minutes: number) => {
  const sign = minutes < 0 ? "-" : "+"
  const abs = Math.abs(minutes)
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`
}

const localText = (instant: number, offsetMinutes: number) =>
  DateTime.fromMillis(instant, { zone: FixedOffsetZone.instance(offsetMinutes) }).toFormat("yyyyLLdd'T'HHmmss")

const WEEK = 7 * 86_400_000
const MINUTE = 60_000
const ZONE_NAME = /^[A-Za-z0-9_+\-/]+$/

/** Built VTIMEZONEs by zone and years: the same few are asked for again and again. */
const zoneCache = new Map<string, string | null>()
const ZONE_CACHE_MAX = 256

/**
 * A VTIMEZONE for `zone` covering the years `fromYear`..`toYear`: the offset at the start of the range, then one
 * observance per offset change found in the zone data (to the minute), each with its own DTSTART. Built from luxon's
 * zone data because ical-generator has none of its own; its generator hook takes the component as text, whose
 * values here are only digits, offsets and the zone's name. `null` for a zone that does not exist.
 */
export const vtimezone = (zone: string, fromYear: number, toYear: number): string | null => {
  const key = `${zone} ${fromYear} ${toYear}`
  const cached = zoneCache.get(key)
  if (cached !== undefined) return cached
  const built = buildVtimezone(zone, fromYear, toYear)
  if (zoneCache.size >= ZONE_CACHE_MAX) zoneCache.clear()
  zoneCache.set(key, built)
  return built
}

const buildVtimezone = (zone: string, fromYear: number, toYear: number): string | null => {
  if (!ZONE_NAME.test(zone) || !DateTime.local().setZone(zone).isValid) return null
  const offsetAt = (ms: number) => DateTime.fromMillis(ms, { zone }).offset
  const isDaylight = (ms: number) => DateTime.fromMillis(ms, { zone }).isInDST
  const begin = Date.UTC(fromYear, 0, 1)
  const end = Date.UTC(toYear + 1, 0, 1)
  const observance = (at: number, from: number, to: number) => {
    const kind = isDaylight(at) ? "DAYLIGHT" : "STANDARD"
    return [
      `BEGIN:${kind}`,
      `DTSTART:${localText(at, from)}`,
      `TZOFFSETFROM:${offsetText(from)}`,
      `TZOFFSETTO:${offsetText(to)}`,
      `END:${kind}`
    ]
  }
  const first = offsetAt(begin)
  const lines = ["BEGIN:VTIMEZONE", `TZID:${zone}`, ...observance(begin, first, first)]
  let previous = first
  // Weekly probes: offset changes of real zones are weeks apart at the least.
  for (let probe = begin + WEEK; probe < end + WEEK; probe += WEEK) {
    const offset = offsetAt(probe)
    if (offset === previous) continue
    // The first minute of the new offset within the week before the probe.
    let low = probe - WEEK
    let high = probe
    while (high - low > MINUTE) {
      const mid = low + Math.floor((high - low) / 2 / MINUTE) * MINUTE
      if (offsetAt(mid) === previous) low = mid
      else high = mid
    }
    lines.push(...observance(high, previous, offset))
    previous = offset
  }
  lines.push("END:VTIMEZONE")
  return lines.join("\r\n")
}

/**
 * A parameter value such as the organiser's CN, encoded per RFC 6868 (`^^`, `^'` for a double quote, `^n` for a line
 * break). ical-generator 10 quotes parameter values but escapes a double quote inside them with a backslash, which
 * RFC 5545 does not allow (a quoted-string ends at the next DQUOTE), so they must not reach it.
 */
export const parameterText = (value: string) =>
  value.replace(/\^/g, "^^").replace(/"/g, "^'").replace(/\r\n|\r|\n/g, "^n")

/** Years a VTIMEZONE covers at most, counted back from the last year a series needs. */
const MAX_ZONE_YEARS = 10

/**
 * Events as one RFC 5545 calendar. A single event is one VEVENT in UTC; a series is one VEVENT whose DTSTART,
 * DTEND, RDATE and EXDATE carry the series' TZID (with a VTIMEZONE), so that clients keep its wall-clock time across
 * daylight-saving changes. ical-generator writes, escapes and folds every line; RFC 5545 (3.1) ends every content
 * line with CRLF, the last one included, which ical-generator leaves off, so it is added here.
 */
export const renderCalendar = (options: CalendarOptions, entries: ReadonlyArray<CalendarEntry>): string => {
  const prepared = entries.map((entry) => ({
    entry,
    lines: entry.series === undefined ? null : seriesLines(entry.event.start, entry.series)
  }))
  const zonedYears = prepared.flatMap(({ entry, lines }) =>
    lines === null || entry.series === undefined || isUtc(entry.series.timezone)
      ? []
      : [
        entry.event.start.getUTCFullYear(),
        ...entry.series.occurrences.map((o) => o.start.getUTCFullYear())
      ]
  )
  const lastYear = zonedYears.length === 0 ? 0 : Math.max(...zonedYears)
  const firstYear = zonedYears.length === 0 ? 0 : Math.max(Math.min(...zonedYears), lastYear - MAX_ZONE_YEARS)

  const calendar = ical({
    prodId: { company: "timebank", product: "events", language: "EN" },
    name: options.calendarName,
    method: ICalCalendarMethod.PUBLISH,
    timezone: { name: null, generator: (zone) => vtimezone(zone, firstYear, lastYear) }
  })

  for (const { entry, lines } of prepared) {
    const e = entry.event
    const zone = lines === null || entry.series === undefined ? null : entry.series.timezone
    const at = (d: Date) => (zone === null ? d : DateTime.fromJSDate(d, { zone }))
    const vevent = calendar.createEvent({
      id: eventUid(e.id, options.tenantSlug),
      stamp: options.now,
      start: at(e.start),
      end: e.end === null ? null : at(e.end),
      timezone: zone,
      summary: e.title,
      description: e.description,
      location: e.location,
      url: e.onlineLink,
      status: e.cancelled ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      organizer: { name: parameterText(e.organiserName), email: organiserAddress(options.tenantSlug) },
      sequence: sequenceOf(e.createdAt, e.updatedAt)
    })
    if (lines !== null) vevent.repeating(lines.lines.join("\r\n"))
  }
  const text = calendar.toString()
  return text.endsWith("\r\n") ? text : `${text}\r\n`
}
