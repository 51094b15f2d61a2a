import { assert, describe, it } from "@effect/vitest"
import { type CalendarEntry, eventUid, renderCalendar, sequenceOf, seriesLines, vtimezone } from "@timebank/server"
import { Effect } from "effect"
import { DateTime } from "luxon"
import { assertCrlfBytes, assertFolded, BERLIN, expand, HOUR, parse, prop, times } from "./ics.js"

describe("EventCalendar (pure)", () => {
  const event = (overrides: Partial<CalendarEntry["event"]> = {}): CalendarEntry["event"] => ({
    id: 7,
    title: "Repair café",
    description: "Bring tools",
    start: new Date("2030-03-05T09:00:00Z"),
    end: new Date("2030-03-05T11:00:00Z"),
    location: null,
    onlineLink: null,
    cancelled: false,
    organiserName: "Ada Admin",
    createdAt: new Date("2030-01-01T00:00:00Z"),
    updatedAt: new Date("2030-01-01T00:00:00Z"),
    ...overrides
  })
  // Tuesdays 10:00 Berlin, across the change to summer time on 2030-03-31.
  const berlinTuesdays = Array.from(
    { length: 6 },
    (_, i) =>
      DateTime.fromObject({ year: 2030, month: 3, day: 5, hour: 10 }, { zone: BERLIN }).plus({ weeks: i })
        .toJSDate()
  )

  it.effect("UID, SEQUENCE", () =>
    Effect.sync(() => {
      assert.strictEqual(eventUid(42, "acme"), "event-42@acme.timebank")
      const created = new Date("2030-01-01T00:00:00Z")
      assert.strictEqual(sequenceOf(created, created), 0)
      assert.strictEqual(sequenceOf(created, new Date(created.getTime() + 90_500)), 90)
      assert.strictEqual(sequenceOf(created, new Date(created.getTime() - 5_000)), 0)
    }))

  it.effect("seriesLines: RRULE bounded by the last occurrence, EXDATE for a cancelled one, TZID wall-clock", () =>
    Effect.sync(() => {
      const lines = seriesLines(berlinTuesdays[0]!, {
        rrule: "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=52",
        timezone: BERLIN,
        occurrences: berlinTuesdays.map((start, i) => ({ start, active: i !== 2 }))
      })!
      assert.deepStrictEqual(lines.lines, [
        "RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20300409T080000Z",
        "EXDATE;TZID=Europe/Berlin:20300319T100000"
      ])
      assert.deepStrictEqual(times(lines.exdates), [berlinTuesdays[2]!.getTime()])
      assert.deepStrictEqual(lines.rdates, [])
    }))

  it.effect("seriesLines: an active occurrence the rule does not produce becomes an RDATE; DTSTART is an instance", () =>
    Effect.sync(() => {
      const moved = new Date("2030-03-14T09:00:00Z") // a Thursday
      const lines = seriesLines(berlinTuesdays[0]!, {
        // The rule itself would not produce the start (a Monday rule), so DTSTART is excluded unless active.
        rrule: "FREQ=WEEKLY;BYDAY=TU",
        timezone: BERLIN,
        occurrences: [{ start: berlinTuesdays[0]!, active: false }, { start: berlinTuesdays[1]!, active: true }, {
          start: moved,
          active: true
        }]
      })!
      assert.deepStrictEqual(times(lines.rdates), [moved.getTime()])
      assert.deepStrictEqual(times(lines.exdates), [berlinTuesdays[0]!.getTime()])
      assert.include(lines.lines, "RDATE;TZID=Europe/Berlin:20300314T100000")
    }))

  it.effect("seriesLines: a month-end clamp (BYSETPOS without BYDAY) becomes its anchor day plus RDATEs", () =>
    Effect.sync(() => {
      const lastDays = [[2030, 1, 31], [2030, 2, 28], [2030, 3, 31], [2030, 4, 30]].map(([y, m, d]) =>
        DateTime.fromObject({ year: y!, month: m!, day: d!, hour: 18 }, { zone: BERLIN }).toJSDate()
      )
      const lines = seriesLines(lastDays[0]!, {
        rrule: "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1",
        timezone: BERLIN,
        occurrences: lastDays.map((start) => ({ start, active: true }))
      })!
      assert.deepStrictEqual(lines.lines, [
        "RRULE:FREQ=MONTHLY;BYMONTHDAY=31;UNTIL=20300430T160000Z",
        "RDATE;TZID=Europe/Berlin:20300228T180000,20300430T180000"
      ])
      // BYSETPOS with BYDAY (last Friday) is kept as it is.
      const fridays = seriesLines(new Date("2030-01-25T17:00:00Z"), {
        rrule: "FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1",
        timezone: BERLIN,
        occurrences: [{ start: new Date("2030-01-25T17:00:00Z"), active: true }, {
          start: new Date("2030-02-22T17:00:00Z"),
          active: true
        }]
      })!
      assert.deepStrictEqual(fridays.lines, ["RRULE:FREQ=MONTHLY;BYDAY=FR;BYSETPOS=-1;UNTIL=20300222T170000Z"])
    }))

  it.effect("seriesLines: UTC series write UTC EXDATEs; no occurrences or an unparsable rule → null", () =>
    Effect.sync(() => {
      const starts = [0, 1, 2].map((i) => new Date(Date.UTC(2030, 0, 1 + i, 8)))
      const lines = seriesLines(starts[0]!, {
        rrule: "FREQ=DAILY",
        timezone: "UTC",
        occurrences: starts.map((start, i) => ({ start, active: i !== 1 }))
      })!
      assert.deepStrictEqual(lines.lines, ["RRULE:FREQ=DAILY;UNTIL=20300103T080000Z", "EXDATE:20300102T080000Z"])
      assert.isNull(seriesLines(starts[0]!, { rrule: "FREQ=DAILY", timezone: "UTC", occurrences: [] }))
      assert.isNull(seriesLines(starts[0]!, { rrule: "NOT A RULE", timezone: "UTC", occurrences: [] }))
      assert.isNull(
        seriesLines(starts[0]!, {
          rrule: "FREQ=SOMETIMES",
          timezone: "UTC",
          occurrences: [{ start: starts[0]!, active: true }]
        })
      )
    }))

  it.effect("vtimezone: Berlin's two changes a year to the minute; a zone without DST has one observance", () =>
    Effect.sync(() => {
      const berlin = vtimezone(BERLIN, 2030, 2030)!
      assert.include(berlin, "TZID:Europe/Berlin")
      assert.include(berlin, "BEGIN:DAYLIGHT\r\nDTSTART:20300331T020000\r\nTZOFFSETFROM:+0100\r\nTZOFFSETTO:+0200")
      assert.include(berlin, "BEGIN:STANDARD\r\nDTSTART:20301027T030000\r\nTZOFFSETFROM:+0200\r\nTZOFFSETTO:+0100")
      const tokyo = vtimezone("Asia/Tokyo", 2030, 2031)!
      assert.strictEqual(tokyo.match(/BEGIN:(STANDARD|DAYLIGHT)/g)?.length, 1)
      assert.include(tokyo, "TZOFFSETTO:+0900")
      assert.include(vtimezone("America/St_Johns", 2030, 2030)!, "TZOFFSETFROM:-0330")
      assert.isNull(vtimezone("Mars/Olympus", 2030, 2030))
      assert.isNull(vtimezone("Europe/Berlin\r\nX", 2030, 2030))
    }))

  it.effect("renderCalendar: a series parses back to one VEVENT whose expansion is the active occurrences", () =>
    Effect.sync(() => {
      const ics = renderCalendar({ tenantSlug: "acme", calendarName: "Acme", now: new Date() }, [{
        event: event({ start: berlinTuesdays[0]!, end: new Date(berlinTuesdays[0]!.getTime() + 2 * HOUR) }),
        series: {
          rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=6",
          timezone: BERLIN,
          occurrences: berlinTuesdays.map((start, i) => ({ start, active: i !== 4 }))
        }
      }])
      assertFolded(ics)
      const { events, vevents } = parse(ics)
      assert.strictEqual(events.length, 1)
      assert.strictEqual(prop(vevents[0]!, "dtstart")!.getParameter("tzid"), BERLIN)
      assert.deepStrictEqual(expand(events[0]!), times(berlinTuesdays.filter((_, i) => i !== 4)))
      // 10:00 local before and after the change: 09:00Z, then 08:00Z.
      assert.strictEqual(berlinTuesdays[0]!.getUTCHours(), 9)
      assert.strictEqual(berlinTuesdays[5]!.getUTCHours(), 8)
      assert.strictEqual(events[0]!.endDate.toJSDate().getTime() - events[0]!.startDate.toJSDate().getTime(), 2 * HOUR)
    }))

  it.effect("renderCalendar: a stored rule as the recurrence helper writes it (INTERVAL, WKST, COUNT) in New York", () =>
    Effect.sync(() => {
      // Every other week on Monday and Wednesday at 19:30 New York time, across the change of 2030-03-10.
      const monday = DateTime.fromObject({ year: 2030, month: 2, day: 18, hour: 19, minute: 30 }, {
        zone: "America/New_York"
      })
      const starts = Array.from(
        { length: 4 },
        (_, week) => [monday, monday.plus({ days: 2 })].map((d) => d.plus({ weeks: 2 * week }).toJSDate())
      ).flat()
      const ics = renderCalendar({ tenantSlug: "acme", calendarName: "Acme", now: new Date() }, [{
        event: event({ start: starts[0]!, end: null }),
        series: {
          rrule: "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=MO;COUNT=8",
          timezone: "America/New_York",
          occurrences: starts.map((start) => ({ start, active: true }))
        }
      }])
      const { events } = parse(ics)
      assert.deepStrictEqual(expand(events[0]!), times(starts))
      assert.deepStrictEqual(new Set(starts.map((d) => d.getUTCHours())), new Set([0, 23]))
    }))

  it.effect("renderCalendar: every line ends with CRLF, the last one included, with or without events", () =>
    Effect.sync(() => {
      const encode = (text: string) => new TextEncoder().encode(text)
      const empty = renderCalendar({ tenantSlug: "acme", calendarName: "Acme", now: new Date() }, [])
      assertFolded(empty)
      assertCrlfBytes(encode(empty))
      const full = renderCalendar({ tenantSlug: "acme", calendarName: "Acme", now: new Date() }, [
        { event: event({ description: `Line one\r\nline two\rline three\n${"long ".repeat(40)}` }) },
        {
          event: event({ id: 8, start: berlinTuesdays[0]! }),
          series: {
            rrule: "FREQ=WEEKLY;BYDAY=TU;COUNT=6",
            timezone: BERLIN,
            occurrences: berlinTuesdays.map((start, i) => ({ start, active: i !== 2 }))
          }
        }
      ])
      assertFolded(full)
      assertCrlfBytes(encode(full))
      assert.lengthOf(parse(full).events, 2)
    }))

  it.effect("renderCalendar: text is escaped and folded (commas, semicolons, backslashes, newlines, long lines)", () =>
    Effect.sync(() => {
      const description = `Bring: tea, cake; and\nmore\\stuff. ${"Lång text, ".repeat(30)}`
      const ics = renderCalendar({ tenantSlug: "acme", calendarName: "Acme; Café, Club", now: new Date() }, [{
        event: event({
          title: "Repair café, weekly; tools",
          description,
          location: "Hall 1, Main St; back door",
          organiserName: "Ada \"Dev\" Admin"
        })
      }])
      assertFolded(ics)
      assert.include(ics, "SUMMARY:Repair café\\, weekly\\; tools")
      const { events, vevents } = parse(ics)
      assert.strictEqual(events[0]!.summary, "Repair café, weekly; tools")
      assert.strictEqual(events[0]!.description, description)
      assert.strictEqual(events[0]!.location, "Hall 1, Main St; back door")
      assert.strictEqual(prop(vevents[0]!, "organizer")!.getParameter("cn"), "Ada \"Dev\" Admin")
      // A double quote inside a quoted parameter is written the RFC 6868 way, never as \" (not RFC 5545).
      assert.include(ics.replace(/\r\n /g, ""), "ORGANIZER;CN=\"Ada ^'Dev^' Admin\":mailto:")
    }))
})
