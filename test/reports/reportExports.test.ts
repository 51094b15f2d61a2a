import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { REPORT_EXPORTS, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { codeOf, errorsOf, fieldOf } from "../fixtures/bodies.js"
import { expectOk, expectStatus } from "../fixtures/client.js"
import { type Community, community } from "../fixtures/community.js"
import { makeActor } from "../fixtures/community.js"
import { insertRsvp, makeEvent } from "../fixtures/events.js"
import { pay } from "../fixtures/ledger.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeUser } from "../fixtures/users.js"
import { makeOrganisation } from "../fixtures/volunteering.js"
import { csvObjects, parseCsv } from "./csvParser.js"
import { erase, exportCsv, hoursOn, monthOf, shiftDays, todayIn } from "./reportsKit.js"

/** The columns of decisions D17, written out: the oracle the contract's list is checked against. */
const COLUMNS = {
  members: ["id", "first_name", "last_name", "email", "role", "status", "balance", "joined_at"],
  transactions: ["id", "created_at", "type", "from", "to", "amount", "description"],
  hours: ["organisation_id", "organisation", "month", "hours"],
  events: ["id", "title", "start_time", "end_time", "location", "going", "attended", "status"],
  organisations: ["id", "name", "status", "owner_email", "volunteers", "hours"],
  "social-value": ["from", "to", "hours", "hourly_value", "currency", "value"]
} as const

type ExportType = keyof typeof COLUMNS

/** A description with everything RFC 4180 must quote: a comma, a quote and a line break. */
const AWKWARD = "Garden, \"weeding\"\r\nand more"

const today = todayIn("UTC")
const RANGE = `from=${shiftDays(today, -1)}&to=${shiftDays(today, 1)}`

/** An export of `c`'s admin over RANGE: checks status and headers, parses the CSV by its header. */
const exported = (c: Community, type: ExportType, query = RANGE) =>
  Effect.map(exportCsv(c.admin, type, query), (res) => {
    assert.strictEqual(res.status, 200, res.text)
    assert.strictEqual(res.headers["content-type"], "text/csv; charset=utf-8")
    assert.strictEqual(res.headers["content-disposition"], `attachment; filename="${type}-${today}.csv"`)
    assert.isTrue(res.text.endsWith("\r\n"))
    return csvObjects(res.text, COLUMNS[type])
  })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("funder report exports", (it) => {
  it.effect("export-types lists the six exports with D17's columns", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const types = (yield* c.admin.client.adminFunderReports.exportTypes().pipe(expectOk)).data
      const listed: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = types.map((t) => [t.type, t.columns])
      const expected: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = Object.entries(COLUMNS)
      assert.deepStrictEqual(listed, expected)
      for (const t of types) {
        assert.strictEqual(t.label, REPORT_EXPORTS[t.type].label)
        assert.isAbove(t.description.length, 20)
      }
    }))

  it.effect("members: everyone who had joined, with role, status, balance and joining time", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 10 } })
      const quoted = yield* makeUser(c.tenant, { firstName: "Zoë \"Zed\"", lastName: "Smith, Jr.", role: "broker" })
      yield* erase(yield* makeUser(c.tenant, { firstName: "Erased" }))
      yield* pay(c.member.client, { recipient_id: UserId.make(quoted.id), amount: 2.25 }).pipe(expectStatus(201))
      const rows = yield* exported(c, "members")
      assert.deepStrictEqual(rows.map((r) => Number(r.id)), [c.admin.id, c.member.id, c.other.id, quoted.id])
      const row = rows.find((r) => r.id === String(quoted.id))!
      assert.deepStrictEqual({ ...row, joined_at: "" }, {
        id: String(quoted.id),
        first_name: "Zoë \"Zed\"",
        last_name: "Smith, Jr.",
        email: quoted.email,
        role: "broker",
        status: "active",
        balance: "2.25",
        joined_at: ""
      })
      assert.strictEqual(new Date(row.joined_at).toISOString(), row.joined_at)
      assert.deepStrictEqual(rows.map((r) => r.balance), ["0", "7.75", "0", "2.25"])
      // Nobody had joined by the end of 2020.
      assert.deepStrictEqual(yield* exported(c, "members", "from=2020-01-01&to=2020-12-31"), [])
    }))

  it.effect("transactions: one row per ledger transaction of the range, parties named by account", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 10 } })
      const [paid] = yield* pay(c.member.client, {
        recipient_id: UserId.make(c.other.id),
        amount: 2.5,
        description: AWKWARD
      }).pipe(expectStatus(201), Effect.map((res) => [res.data]))
      const rows = yield* exported(c, "transactions")
      assert.deepStrictEqual(rows.map((r) => r.type), ["grant", "transfer"])
      const [grant, transfer] = rows
      assert.deepStrictEqual({ ...grant!, id: "", created_at: "" }, {
        id: "",
        created_at: "",
        type: "grant",
        from: "treasury",
        to: `member:${c.member.id}`,
        amount: "10",
        description: "test funds"
      })
      assert.deepStrictEqual(transfer, {
        id: String(paid!.id),
        created_at: transfer!.created_at,
        type: "transfer",
        from: `member:${c.member.id}`,
        to: `member:${c.other.id}`,
        amount: "2.5",
        description: AWKWARD
      })
      assert.strictEqual(new Date(transfer!.created_at).toISOString(), transfer!.created_at)
      assert.deepStrictEqual(yield* exported(c, "transactions", "to=2020-12-31"), [])
    }))

  it.effect("hours, organisations, events and social value, from what the test created", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 10 } })
      const cafe = yield* makeOrganisation(c.admin, { name: `Repair Café, "Central" ${c.tenant.id}` })
      const quiet = yield* makeOrganisation(c.other, { name: `Quiet ${c.tenant.id}`, status: "pending" })
      yield* hoursOn(cafe, c.member, 3, today)
      yield* hoursOn(cafe, c.other, 2, today)
      yield* hoursOn(cafe, c.other, 4, today, "pending")
      yield* hoursOn(cafe, c.other, 8, "2020-05-01")
      yield* pay(c.member.client, { recipient_id: UserId.make(c.other.id), amount: 1.5 }).pipe(expectStatus(201))

      assert.deepStrictEqual(yield* exported(c, "hours"), [
        { organisation_id: String(cafe.id), organisation: cafe.name, month: monthOf(today), hours: "5" },
        { organisation_id: "", organisation: "Member exchanges", month: monthOf(today), hours: "1.5" }
      ])
      assert.deepStrictEqual(
        yield* exported(c, "organisations"),
        [
          {
            id: String(quiet.id),
            name: quiet.name,
            status: "pending",
            owner_email: c.other.email,
            volunteers: "0",
            hours: "0"
          },
          {
            id: String(cafe.id),
            name: cafe.name,
            status: "active",
            owner_email: c.admin.email,
            volunteers: "2",
            hours: "5"
          }
        ].sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()))
      )

      const soon = yield* makeEvent(c.admin, { title: "Repair café, \"bring tools\"", startsInHours: 3, hours: null })
      const cancelled = yield* makeEvent(c.member, { startsInHours: 5, status: "cancelled" })
      yield* makeEvent(c.member, { startsInHours: 24 * 40 })
      yield* Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE events SET location = ${"Hall 1\nBack door"} WHERE id = ${cancelled.id}`).pipe(Effect.orDie)
      yield* insertRsvp(soon.id, c.member, "going")
      yield* insertRsvp(soon.id, c.other, "attended")
      yield* insertRsvp(soon.id, yield* makeActor(c.tenant, {}, "token"), "interested")
      const events = yield* exported(c, "events")
      const shown: ReadonlyArray<Record<string, string>> = events.map((e) => ({
        ...e,
        start_time: "",
        end_time: e.end_time === "" ? "" : "set"
      }))
      assert.deepStrictEqual(shown, [
        {
          id: String(soon.id),
          title: soon.title,
          start_time: "",
          end_time: "",
          location: "",
          going: "2",
          attended: "1",
          status: "active"
        },
        {
          id: String(cancelled.id),
          title: cancelled.title,
          start_time: "",
          end_time: "set",
          location: "Hall 1\nBack door",
          going: "0",
          attended: "0",
          status: "cancelled"
        }
      ])
      assert.strictEqual(new Date(events[0]!.start_time).toISOString(), events[0]!.start_time)

      yield* c.admin.client.adminFunderReports.updateSocialValueConfig({
        payload: { hourly_value: 10, currency: "GBP" }
      }).pipe(expectOk)
      assert.deepStrictEqual(yield* exported(c, "social-value"), [{
        from: shiftDays(today, -1),
        to: shiftDays(today, 1),
        hours: "6.5",
        hourly_value: "10",
        currency: "GBP",
        value: "65"
      }])
    }))

  it.effect("an unknown type is 404, a bad date 422, both in the envelope; the member reports' routes still answer", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      for (const type of ["unknown", "Members", "1"]) {
        const res = yield* exportCsv(c.admin, type)
        assert.deepStrictEqual([res.status, codeOf(res.body)], [404, "NOT_FOUND"], type)
        assert.strictEqual(errorsOf(res.body).length, 1)
      }
      const bad = yield* exportCsv(c.admin, "members", "from=2024-02-30")
      assert.deepStrictEqual([bad.status, codeOf(bad.body), fieldOf(bad.body)], [422, "VALIDATION_ERROR", "from"])
      const backwards = yield* exportCsv(c.admin, "events", "from=2024-03-02&to=2024-03-01")
      assert.deepStrictEqual([backwards.status, fieldOf(backwards.body)], [422, "to"])
      // Static segments win: /reports/stats is the member reports', /reports/export-types ours.
      const stats = yield* rawRequest("GET", "/api/v2/admin/reports/stats", { headers: c.adminHeaders })
      assert.strictEqual(stats.status, 200)
      const types = yield* rawRequest("GET", "/api/v2/admin/reports/export-types", { headers: c.adminHeaders })
      assert.strictEqual(types.status, 200)
      // The typed client reads the CSV as text.
      const text = yield* c.admin.client.adminFunderReports.export({ path: { type: "members" }, urlParams: {} }).pipe(
        expectOk
      )
      assert.deepStrictEqual(parseCsv(text)[0], COLUMNS.members)
      assert.strictEqual(parseCsv(text).length, 4)
    }))

  it.effect("another community's members, transactions, hours, organisations and events never appear", () =>
    Effect.gen(function*() {
      const mine = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 5 } })
      const theirs = yield* community({ signIn: "token", timezone: "UTC", fund: { member: 5 } })
      const secret = `secret-${theirs.tenant.id}`
      const theirOrg = yield* makeOrganisation(theirs.admin, { name: `Org ${secret}` })
      yield* hoursOn(theirOrg, theirs.member, 7, today)
      yield* pay(theirs.member.client, { recipient_id: UserId.make(theirs.other.id), amount: 3, description: secret })
        .pipe(expectStatus(201))
      yield* makeEvent(theirs.admin, { title: `Event ${secret}`, startsInHours: 2 })
      yield* theirs.admin.client.adminFunderReports.updateSocialValueConfig({
        payload: { hourly_value: 99, currency: "JPY" }
      }).pipe(expectOk)
      const theirIds = new Set([theirs.admin.id, theirs.member.id, theirs.other.id].map(String))
      for (const type of Object.keys(COLUMNS) as ReadonlyArray<ExportType>) {
        const res = yield* exportCsv(mine.admin, type, RANGE)
        assert.strictEqual(res.status, 200)
        for (const leak of [secret, theirs.member.email, theirs.admin.email, "JPY"]) {
          assert.notInclude(res.text, leak, `${type} shows ${leak}`)
        }
        if (type === "members") {
          assert.isFalse(csvObjects(res.text, COLUMNS.members).some((r) => theirIds.has(r.id)))
        }
      }
      const value = yield* exported(mine, "social-value")
      assert.deepStrictEqual([value[0]!.hours, value[0]!.hourly_value, value[0]!.currency], ["0", "0", "EUR"])
      // The same exports in their community show their records.
      const theirRows = yield* exported(theirs, "organisations")
      assert.deepStrictEqual(theirRows.map((r) => [r.name, r.hours]), [[theirOrg.name, "7"]])
    }))
})
