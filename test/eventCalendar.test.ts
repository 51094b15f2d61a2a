import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { type CalendarEntry, eventUid, renderCalendar, sequenceOf, seriesLines, vtimezone } from "@timebank/server"
import { Effect } from "effect"
import ICAL from "ical.js"
import { DateTime } from "luxon"
import { codeOf, type ErrorBody } from "./fixtures/bodies.js"
import { makeEvent, makeRecurringEvent } from "./fixtures/events.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, makeUser } from "./fixtures/users.js"

const EVENTS = "/api/v2/events"
const HOUR = 3_600_000
const BERLIN = "Europe/Berlin"

/** Parses an iCalendar text back with ical.js, registering its VTIMEZONEs so that TZID times resolve. */
const parse = (text: string) => {
  const calendar = new ICAL.Component(ICAL.parse(text))
  for (const zone of calendar.getAllSubcomponents("vtimezone")) ICAL.TimezoneService.register(zone)
  const vevents = calendar.getAllSubcomponents("vevent")
  return { calendar, vevents, events: vevents.map((v) => new ICAL.Event(v)) }
}

/** The instants (ms) a VEVENT's recurrence produces, RRULE, RDATE and EXDATE applied. */
const expand = (event: ICAL.Event) => {
  const iterator = event.iterator()
  const out: Array<number> = []
  for (let next = iterator.next(); next !== undefined && next !== null && out.length < 500; next = iterator.next()) {
    out.push(next.toJSDate().getTime())
  }
  return out
}

const prop = (vevent: ICAL.Component, name: string) => vevent.getFirstProperty(name)
const text = (vevent: ICAL.Component, name: string) => vevent.getFirstPropertyValue(name) as string | null

/** Every line of an RFC 5545 text is at most 75 octets and ends with CRLF, the last one included. */
const assertFolded = (ics: string) => {
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
const assertCrlfBytes = (bytes: Uint8Array) => {
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
const weeklyBerlin = (count: number) => {
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
const monthlyLastBerlin = (count: number) => {
  const base = DateTime.now().setZone(BERLIN).startOf("month").plus({ months: 1 })
  return Array.from({ length: count }, (_, i) => {
    const month = base.plus({ months: i })
    return month.set({ day: Math.min(31, month.daysInMonth!), hour: 18 }).toJSDate()
  })
}

const times = (dates: ReadonlyArray<Date>) => dates.map((d) => d.getTime())

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

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("event ICS export", (it) => {
  const community = (overrides: Record<string, unknown> = {}) =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant({ timezone: BERLIN, ...overrides })
      const member = yield* makeUser(tenant, { firstName: "Mia", lastName: "Member" })
      return { tenant, member, anonymous: tenantHeaders(tenant) }
    })

  const ics = (path: string, headers: Record<string, string>) => rawRequest("GET", path, { headers })

  const setColumns = (id: number, columns: Record<string, unknown>) =>
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE events SET ${sql.update(columns)} WHERE id = ${id}`).pipe(
      Effect.orDie
    )

  const rowTimes = (id: number) =>
    Effect.flatMap(
      SqlClient.SqlClient,
      (sql) =>
        sql<{ start_time: Date; end_time: Date | null }>`SELECT start_time, end_time FROM events WHERE id = ${id}`
    ).pipe(Effect.map((rows) => rows[0]!), Effect.orDie)

  const uids = (body: string) => parse(body).events.map((e) => e.uid)

  /** The body exactly as the server sent it, not decoded. */
  const icsBytes = (path: string, headers: Record<string, string>) =>
    Effect.gen(function*() {
      const client = yield* HttpClient.HttpClient
      const response = yield* client.execute(HttpClientRequest.get(path).pipe(HttpClientRequest.setHeaders(headers)))
      return { status: response.status, bytes: new Uint8Array(yield* response.arrayBuffer) }
    }).pipe(Effect.scoped, Effect.orDie)

  it.effect("raw bytes of both exports: every line, the last one included, ends with CRLF (RFC 5545 3.1)", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community()
      const single = yield* makeEvent(member, { startsInHours: 30 })
      yield* setColumns(single.id, { description: `First line\nsecond line\r\n${"a long text ".repeat(20)}` })
      const { starts, weekday } = weeklyBerlin(8)
      const series = yield* makeRecurringEvent(member, {
        starts,
        rrule: `FREQ=WEEKLY;BYDAY=${weekday}`,
        timezone: BERLIN,
        cancelled: [2]
      })
      for (
        const path of [
          `${EVENTS}/${single.id}.ics`,
          `${EVENTS}/${series.template.id}.ics`,
          `${EVENTS}/${series.occurrences[3]!.id}.ics`,
          `${EVENTS}.ics`,
          `${EVENTS}.ics?when=past`
        ]
      ) {
        const res = yield* icsBytes(path, anonymous)
        assert.strictEqual(res.status, 200, path)
        assertCrlfBytes(res.bytes)
      }
      const empty = yield* icsBytes(`${EVENTS}.ics`, (yield* community()).anonymous)
      assertCrlfBytes(empty.bytes)
    }))

  it.effect("GET /events/{id}.ics: one VEVENT in UTC with every field; the JSON detail still answers", () =>
    Effect.gen(function*() {
      const { anonymous, member, tenant } = yield* community()
      const event = yield* makeEvent(member, { startsInHours: 30, hours: 3 })
      const description = "Bring: tea, cake; and\nmore"
      yield* setColumns(event.id, {
        description,
        location: "Hall 1, Main St",
        online_link: "https://meet.example.org/x?a=1&b=2"
      })
      const res = yield* ics(`${EVENTS}/${event.id}.ics`, anonymous)
      assert.strictEqual(res.status, 200, res.text)
      assert.strictEqual(res.headers["content-type"], "text/calendar; charset=utf-8")
      assert.strictEqual(res.headers["content-disposition"], `inline; filename="event-${event.id}.ics"`)
      assert.isDefined(res.headers["x-request-id"])
      assertFolded(res.text)
      assert.notInclude(res.text, member.email)
      const { calendar, events, vevents } = parse(res.text)
      assert.strictEqual(calendar.getFirstPropertyValue("version"), "2.0")
      assert.strictEqual(calendar.getFirstPropertyValue("x-wr-calname"), "Test Community")
      assert.lengthOf(calendar.getAllSubcomponents("vtimezone"), 0)
      assert.strictEqual(events.length, 1)
      const [e, v] = [events[0]!, vevents[0]!]
      const row = yield* rowTimes(event.id)
      assert.strictEqual(e.uid, `event-${event.id}@${tenant.slug}.timebank`)
      assert.strictEqual(e.summary, event.title)
      assert.strictEqual(e.description, description)
      assert.strictEqual(e.location, "Hall 1, Main St")
      assert.strictEqual(text(v, "url"), "https://meet.example.org/x?a=1&b=2")
      assert.strictEqual(text(v, "status"), "CONFIRMED")
      assert.strictEqual(e.sequence, 0)
      assert.isFalse(e.isRecurring())
      assert.isNull(prop(v, "rrule"))
      assert.isTrue(e.startDate.zone === ICAL.Timezone.utcTimezone, "DTSTART in UTC")
      assert.strictEqual(e.startDate.toJSDate().getTime(), Math.floor(row.start_time.getTime() / 1000) * 1000)
      assert.strictEqual(e.endDate.toJSDate().getTime(), Math.floor(row.end_time!.getTime() / 1000) * 1000)
      assert.isNotNull(prop(v, "dtstamp"))
      const organizer = prop(v, "organizer")!
      assert.strictEqual(organizer.getParameter("cn"), "Mia Member")
      assert.strictEqual(organizer.getFirstValue(), `mailto:noreply@${tenant.slug}.timebank`)

      const json = yield* ics(`${EVENTS}/${event.id}`, anonymous)
      assert.strictEqual(json.status, 200)
      assert.include(json.headers["content-type"] ?? "", "application/json")
      assert.strictEqual((json.body as { data: { id: number } }).data.id, event.id)
    }))

  it.effect("a cancelled event is STATUS:CANCELLED; an edit raises SEQUENCE; no end time means no DTEND", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community()
      const event = yield* makeEvent(member, { status: "cancelled", hours: null })
      yield* Effect.flatMap(
        SqlClient.SqlClient,
        (sql) => sql`UPDATE events SET updated_at = created_at + interval '90 seconds' WHERE id = ${event.id}`
      ).pipe(
        Effect.orDie
      )
      const res = yield* ics(`${EVENTS}/${event.id}.ics`, anonymous)
      assert.strictEqual(res.status, 200, res.text)
      const { events, vevents } = parse(res.text)
      assert.strictEqual(text(vevents[0]!, "status"), "CANCELLED")
      assert.strictEqual(events[0]!.sequence, 90)
      assert.isNull(prop(vevents[0]!, "dtend"))
    }))

  it.effect("a weekly Berlin series across a DST change: one VEVENT with TZID, RRULE and EXDATE, by template or occurrence", () =>
    Effect.gen(function*() {
      const { anonymous, member, tenant } = yield* community()
      const { starts, weekday } = weeklyBerlin(35)
      // A 35-week run always crosses a change of the clocks: the UTC hour of 10:00 local moves.
      assert.strictEqual(new Set(starts.map((d) => d.getUTCHours())).size, 2)
      const series = yield* makeRecurringEvent(member, {
        starts,
        rrule: `FREQ=WEEKLY;BYDAY=${weekday};COUNT=35`,
        frequency: "weekly",
        timezone: BERLIN,
        cancelled: [3]
      })
      // Scope `single` detaches an occurrence: it leaves the series and is its own event.
      const detached = series.occurrences[5]!
      yield* setColumns(detached.id, { parent_event_id: null })
      const expected = times(starts.filter((_, i) => i !== 3 && i !== 5))

      for (const id of [series.template.id, series.occurrences[0]!.id, series.occurrences[20]!.id]) {
        const res = yield* ics(`${EVENTS}/${id}.ics`, anonymous)
        assert.strictEqual(res.status, 200, res.text)
        assertFolded(res.text)
        const { calendar, events, vevents } = parse(res.text)
        assert.strictEqual(events.length, 1)
        const [e, v] = [events[0]!, vevents[0]!]
        assert.strictEqual(e.uid, `event-${series.template.id}@${tenant.slug}.timebank`)
        assert.isTrue(e.isRecurring())
        assert.strictEqual(prop(v, "dtstart")!.getParameter("tzid"), BERLIN)
        assert.strictEqual(prop(v, "dtend")!.getParameter("tzid"), BERLIN)
        assert.strictEqual(calendar.getFirstSubcomponent("vtimezone")!.getFirstPropertyValue("tzid"), BERLIN)
        assert.strictEqual(e.startDate.hour, 10)
        const rrule = text(v, "rrule") as unknown as ICAL.Recur
        assert.strictEqual(rrule.freq, "WEEKLY")
        assert.isNull(rrule.count)
        assert.lengthOf(v.getAllProperties("exdate"), 1)
        assert.deepStrictEqual(expand(e), expected)
      }

      const alone = yield* ics(`${EVENTS}/${detached.id}.ics`, anonymous)
      const { events } = parse(alone.text)
      assert.deepStrictEqual(events.map((e) => [e.uid, e.isRecurring()]), [
        [`event-${detached.id}@${tenant.slug}.timebank`, false]
      ])
      assert.strictEqual(events[0]!.startDate.toJSDate().getTime(), starts[5]!.getTime())
    }))

  it.effect("monthly on the 31st clamps to the month's end: the RRULE's expansion matches the rows", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community()
      const starts = monthlyLastBerlin(12)
      const series = yield* makeRecurringEvent(member, {
        starts,
        rrule: "RRULE:FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1;COUNT=12",
        frequency: "monthly",
        timezone: BERLIN,
        hours: 1
      })
      const res = yield* ics(`${EVENTS}/${series.template.id}.ics`, anonymous)
      assert.strictEqual(res.status, 200, res.text)
      const { events, vevents } = parse(res.text)
      // Exported as its anchor day with the clamped months as RDATEs: BYSETPOS without BYDAY is beyond ical.js.
      assert.include(res.text, "BYMONTHDAY=31")
      assert.notInclude(res.text, "BYSETPOS")
      assert.lengthOf(vevents[0]!.getAllProperties("exdate"), 0)
      const short = starts.filter((d) => DateTime.fromJSDate(d, { zone: BERLIN }).day < 31)
      assert.isAbove(short.length, 0)
      assert.lengthOf(vevents[0]!.getAllProperties("rdate").flatMap((p) => p.getValues()), short.length)
      assert.deepStrictEqual(expand(events[0]!), times(starts))
    }))

  it.effect("a cancelled series is STATUS:CANCELLED and keeps its dates", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community()
      const { starts, weekday } = weeklyBerlin(4)
      const series = yield* makeRecurringEvent(member, {
        starts,
        rrule: `FREQ=WEEKLY;BYDAY=${weekday}`,
        timezone: BERLIN,
        cancelled: [0, 1, 2, 3]
      })
      yield* setColumns(series.template.id, { status: "cancelled" })
      const res = yield* ics(`${EVENTS}/${series.occurrences[1]!.id}.ics`, anonymous)
      const { events, vevents } = parse(res.text)
      assert.strictEqual(text(vevents[0]!, "status"), "CANCELLED")
      assert.deepStrictEqual(expand(events[0]!), times(starts))
    }))

  it.effect("GET /events.ics: the upcoming list (default) with each series once; `past`; bad `when` is 422", () =>
    Effect.gen(function*() {
      const { anonymous, member, tenant } = yield* community()
      const soon = yield* makeEvent(member, { startsInHours: 5 })
      const later = yield* makeEvent(member, { startsInHours: 50 })
      const past = yield* makeEvent(member, { startsInHours: -50 })
      const cancelled = yield* makeEvent(member, { startsInHours: 20, status: "cancelled" })
      const { starts, weekday } = weeklyBerlin(6)
      const series = yield* makeRecurringEvent(member, {
        starts,
        rrule: `FREQ=WEEKLY;BYDAY=${weekday}`,
        timezone: BERLIN
      })
      const elsewhere = yield* community()
      const foreign = yield* makeEvent(elsewhere.member, { startsInHours: 6 })
      const uid = (id: number) => `event-${id}@${tenant.slug}.timebank`

      for (const path of [`${EVENTS}.ics`, `${EVENTS}.ics?when=upcoming`]) {
        const res = yield* ics(path, anonymous)
        assert.strictEqual(res.status, 200, res.text)
        assert.strictEqual(res.headers["content-type"], "text/calendar; charset=utf-8")
        assertFolded(res.text)
        assert.deepStrictEqual(uids(res.text), [uid(soon.id), uid(later.id), uid(series.template.id)])
        const recurring = parse(res.text).events.find((e) => e.uid === uid(series.template.id))!
        assert.deepStrictEqual(expand(recurring), times(starts))
        assert.notInclude(res.text, String(foreign.title))
      }
      const pastRes = yield* ics(`${EVENTS}.ics?when=past`, anonymous)
      assert.deepStrictEqual(uids(pastRes.text), [uid(past.id)])
      assert.notInclude(pastRes.text, cancelled.title)

      const bad = yield* ics(`${EVENTS}.ics?when=soon`, anonymous)
      assert.strictEqual(bad.status, 422)
      assert.strictEqual(codeOf(bad.body), "VALIDATION_ERROR")
      assert.strictEqual((bad.body as ErrorBody).errors[0]!.field, "when")

      const empty = yield* ics(`${EVENTS}.ics`, (yield* community()).anonymous)
      assert.strictEqual(empty.status, 200)
      assert.lengthOf(parse(empty.text).events, 0)
    }))

  it.effect("another tenant's event, an unknown id and a non-numeric id are 404 NOT_FOUND in our envelope", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community()
      const { anonymous: elsewhere } = yield* community()
      const event = yield* makeEvent(member)
      for (
        const [path, headers] of [
          [`${EVENTS}/${event.id}.ics`, elsewhere],
          [`${EVENTS}/999999999.ics`, anonymous],
          [`${EVENTS}/abc.ics`, anonymous],
          [`${EVENTS}/0.ics`, anonymous],
          [`${EVENTS}/${event.id}.json`, anonymous]
        ] as const
      ) {
        const res = yield* ics(path, headers)
        assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "NOT_FOUND")
      }
      const mine = yield* ics(`${EVENTS}/${event.id}.ics`, yield* authHeaders(member))
      assert.strictEqual(mine.status, 200, "a signed-in caller gets the same export")
    }))

  it.effect("with events switched off both exports are 403 FEATURE_DISABLED; no tenant is 400 tenant_required", () =>
    Effect.gen(function*() {
      const { anonymous, member } = yield* community({ features: { events: false } })
      const event = yield* makeEvent(member)
      for (const path of [`${EVENTS}/${event.id}.ics`, `${EVENTS}.ics`, `${EVENTS}.ics?when=past`]) {
        const res = yield* ics(path, anonymous)
        assert.strictEqual(res.status, 403, `${path}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "FEATURE_DISABLED")
      }
      const noTenant = yield* ics(`${EVENTS}/${event.id}.ics`, {})
      assert.strictEqual(noTenant.status, 400)
      assert.strictEqual(codeOf(noTenant.body), "tenant_required")
    }))

  it.effect("OpenAPI documents both routes as text/calendar", () =>
    Effect.gen(function*() {
      const res = yield* rawRequest("GET", "/api/v2/openapi.json")
      const paths = (res.body as { paths: Record<string, { get?: { responses: Record<string, unknown> } }> }).paths
      for (const path of [`${EVENTS}/{id}.ics`, `${EVENTS}.ics`]) {
        const ok = paths[path]?.get?.responses["200"] as { content: Record<string, unknown> } | undefined
        assert.isDefined(ok, path)
        assert.deepStrictEqual(Object.keys(ok!.content), ["text/calendar; charset=utf-8"])
      }
    }))
})
