import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { EventId } from "@timebank/domain"
import { Effect } from "effect"
import ICAL from "ical.js"
import { DateTime } from "luxon"
import { codeOf, type ErrorBody } from "../../fixtures/bodies.js"
import { expectError } from "../../fixtures/client.js"
import { community, type CommunityOptions } from "../../fixtures/community.js"
import { makeEvent, makeRecurringEvent } from "../../fixtures/events.js"
import { rawRequest, TestApp } from "../../fixtures/TestApp.js"
import {
  assertCrlfBytes,
  assertFolded,
  BERLIN,
  EVENTS,
  expand,
  monthlyLastBerlin,
  parse,
  prop,
  text,
  times,
  weeklyBerlin
} from "./ics.js"

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("event ICS export", (it) => {
  /** The shared community in Berlin time; Mia Member organises. */
  const berlinCommunity = (options: CommunityOptions = {}) =>
    community({ timezone: BERLIN, signIn: "token", ...options })

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
      const { anonymous, member } = yield* berlinCommunity()
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
      const empty = yield* icsBytes(`${EVENTS}.ics`, (yield* berlinCommunity()).anonymous)
      assertCrlfBytes(empty.bytes)
    }))

  it.effect("GET /events/{id}.ics: one VEVENT in UTC with every field; the JSON detail still answers", () =>
    Effect.gen(function*() {
      const { anonymous, member, tenant } = yield* berlinCommunity()
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
      const { anonymous, member } = yield* berlinCommunity()
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
      const { anonymous, member, tenant } = yield* berlinCommunity()
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
      const { anonymous, member } = yield* berlinCommunity()
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
      const { anonymous, member } = yield* berlinCommunity()
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
      const { anonymous, member, tenant } = yield* berlinCommunity()
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
      const elsewhere = yield* berlinCommunity()
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

      const empty = yield* ics(`${EVENTS}.ics`, (yield* berlinCommunity()).anonymous)
      assert.strictEqual(empty.status, 200)
      assert.lengthOf(parse(empty.text).events, 0)
    }))

  it.effect("another tenant's event, an unknown id and a non-numeric id are 404 NOT_FOUND in our envelope", () =>
    Effect.gen(function*() {
      const { anonymous, member, visitor } = yield* berlinCommunity()
      const { visitor: elsewhere } = yield* berlinCommunity()
      const event = yield* makeEvent(member)
      yield* elsewhere.client.eventCalendar.event({ path: { id: event.id } }).pipe(expectError(404, "NOT_FOUND"))
      yield* visitor.client.eventCalendar.event({ path: { id: 999999999 as EventId } }).pipe(
        expectError(404, "NOT_FOUND")
      )
      // Raw: paths the client cannot write.
      for (const path of [`${EVENTS}/abc.ics`, `${EVENTS}/0.ics`, `${EVENTS}/${event.id}.json`]) {
        const res = yield* ics(path, anonymous)
        assert.strictEqual(res.status, 404, `${path}: ${res.text}`)
        assert.strictEqual(codeOf(res.body), "NOT_FOUND")
      }
      const mine = yield* ics(`${EVENTS}/${event.id}.ics`, member.headers)
      assert.strictEqual(mine.status, 200, "a signed-in caller gets the same export")
    }))

  it.effect("with events switched off both exports are 403 FEATURE_DISABLED; no tenant is 400 tenant_required", () =>
    Effect.gen(function*() {
      const { member, visitor } = yield* berlinCommunity({ features: { events: false } })
      const event = yield* makeEvent(member)
      const routes: ReadonlyArray<readonly [string, Effect.Effect<unknown, unknown>]> = [
        ["/events/{id}.ics", visitor.client.eventCalendar.event({ path: { id: event.id } })],
        ["/events.ics", visitor.client.eventCalendar.list({ urlParams: {} })],
        ["/events.ics?when=past", visitor.client.eventCalendar.list({ urlParams: { when: "past" } })]
      ]
      for (const [route, call] of routes) {
        const failure = yield* call.pipe(expectError(403, "FEATURE_DISABLED"))
        assert.strictEqual(failure.status, 403, route)
      }
      // Raw: a request without any tenant header.
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
