// iCalendar readers and series dates shared by the calendar tests (calendarRender.test.ts, eventCalendar.test.ts).
import { assert } from "@effect/vitest"
import ICAL from "ical.js"
import { DateTime } from "luxon"
export const EVENTS = "/api/v2/events"
export const HOUR = 3_600_000
export const BERLIN = "Europe/Berlin"

/** Parses an iCalendar text back with ical.js, registering its VTIMEZONEs so that TZID times resolve. */
export const parse = (text: string) => {
  const calendar = new ICAL.Component(ICAL.parse(text))
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone)
  const vevents = calendar.getAllSubcomponents("vevent")
  return { calendar, vevents, events: vevents.map((v) => new ICAL.Event(v)) }
}

/** The instants (ms) a VEVENT's recurrence produces, RRULE, RDATE and EXDATE applied. */
export const expand = (event: ICAL.Event) => {
  const iterator = event.iterator()
  const out: Array<number> = []
  for (let next = iterator.next(); next !== undefined && next !== null && out.length < 500; next = iterator.next()) {
    out.push(next.toJSDate().getTime())
  }
  return out
}

export const prop = (vevent: ICAL.Component, name: string) => vevent.getFirstProperty(name)
export const text = (vevent: ICAL.Component, name: string) => vevent.getFirstPropertyValue(name) as string | null

/** Every line of an RFC 5545 text is at most 75 octets and ends with CRLF, the last one included. */
export const assertFolded = (ics: string) => {
  assert.isTrue(ics.endsWith("END:VCALENDAR\r\n"), "ends with END:VCALENDAR and CRLF")
  const lines = ics.split("\r\n")
  assert.strictEqual(lines.pop(), "", "nothing after the last CRLF")
  for (const line of lines) {
    assert.isAtMost(Buffer.byteLength(line, "utf8"), 75, line)
    assert.notInclude(line, "\n")
    assert.notInclude(line, "\r")
  }
}

const CR = 0x0d
const LF = 0x0a

/** RFC 5545 3.1 on the bytes as sent: every line, the last included, ends with CRLF; no bare CR or LF anywhere. */
export const assertCrlfBytes = (bytes: Uint8Array) => {
  assert.isAbove(bytes.length, 2)
  assert.deepStrictEqual([...bytes.subarray(-2)], [CR, LF], "the last line ends with CRLF")
  const bare: Array<number> = []
  let lines = 0
  for (let i = 0; i < bytes.length; i++) {
    if (bytes[i] === LF && bytes[i - 1] !== CR) bare.push(i)
    if (bytes[i] === CR && bytes[i + 1] !== LF) bare.push(i)
    if (bytes[i] === LF) lines++
  }
  assert.deepStrictEqual(bare, [], "bare CR or LF at these offsets")
  assert.isAbove(lines, 5)
  const text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  assert.isTrue(text.startsWith("BEGIN:VCALENDAR\r\n"))
  assert.isTrue(text.endsWith("\r\nEND:VCALENDAR\r\n"))
}

/** Weekly at 10:00 Berlin time for `count` weeks from a week from now: long enough to cross a DST change. */
export const weeklyBerlin = (count: number) => {
  const first = DateTime.now().setZone(BERLIN).plus({ weeks: 1 }).set({
    hour: 10,
    minute: 0,
    second: 0,
    millisecond: 0
  })
  return {
    weekday: ["MO", "TU", "WE", "TH", "FR", "SA", "SU"][first.weekday - 1]!,
    starts: Array.from({ length: count }, (_, i) => first.plus({ weeks: i }).toJSDate())
  }
}

/** Monthly on the 31st (clamped to the month's last day) at 18:00 Berlin time, `count` months from next month. */
export const monthlyLastBerlin = (count: number) => {
  const base = DateTime.now().setZone(BERLIN).startOf("month").plus({ months: 1 })
  return Array.from({ length: count }, (_, i) => {
    const month = base.plus({ months: i })
    return month.set({ day: Math.min(31, month.daysInMonth!), hour: 18 }).toJSDate()
  })
}

export const times = (dates: ReadonlyArray<Date>) => dates.map((d) => d.getTime())
