import { assert, describe, it } from "@effect/vitest"
import { parseRRule, recurrenceOf, type RecurrenceRule } from "@timebank/server"
import { Either } from "effect"
import { assertStoredRuleMatches, expand, issuesOf, local, utc } from "./expansionCases.js"

describe("yearly", () => {
  it("Feb 29 falls on Feb 28 in a year without one", () => {
    const e = expand({
      start: "2024-02-29T10:00",
      now: "2024-02-28T12:00:00Z",
      rule: { frequency: "yearly", interval: 1 },
      ends: { type: "after_count", count: 5 }
    })
    // The one-year horizon (2025-02-28 12:00) lets exactly two through.
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2024-02-29", "2025-02-28"])
    assert.strictEqual(e.rrule, "FREQ=YEARLY;BYMONTH=2;BYMONTHDAY=28,29;BYSETPOS=-1;COUNT=2")
    assertStoredRuleMatches(e)
  })
  it("same day next year, within one year; interval 2 leaves only the first", () => {
    const one = expand({ start: "2025-01-10T10:00", rule: { frequency: "yearly", interval: 1 } })
    assert.deepStrictEqual(one.occurrences.map((o) => o.date), ["2025-01-10"])
    const early = expand({
      start: "2025-01-01T10:00",
      now: "2024-12-31T12:00:00Z",
      rule: { frequency: "yearly", interval: 1 }
    })
    assert.deepStrictEqual(early.occurrences.map((o) => o.date), ["2025-01-01"])
    const two = expand({
      start: "2025-01-02T10:00",
      now: "2025-01-02T09:00:00Z",
      rule: { frequency: "yearly", interval: 2 }
    })
    assert.deepStrictEqual(two.occurrences.map((o) => o.date), ["2025-01-02"])
    assert.strictEqual(one.rrule, "FREQ=YEARLY;BYMONTH=1;BYMONTHDAY=10;COUNT=1")
  })
  it("yearly rules expand the same with the library over several years (horizon far away)", () => {
    // The clamp is pure: checked here without the horizon by starting close to `now`.
    const e = expand({
      start: "2024-02-29T10:00",
      now: "2024-02-29T09:00:00Z",
      rule: { frequency: "yearly", interval: 1 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2024-02-29"])
  })
})

describe("caps", () => {
  it("never more than 52 occurrences, whatever the count asks", () => {
    const daily = expand({
      start: "2025-01-02T10:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 500 }
    })
    assert.strictEqual(daily.occurrences.length, 52)
    assert.strictEqual(daily.occurrences.at(-1)!.date, "2025-02-22")
    const noCount = expand({ start: "2025-01-02T10:00", rule: { frequency: "daily", interval: 1 } })
    assert.strictEqual(noCount.occurrences.length, 52)
    const weekly = expand({
      start: "2025-01-06T10:00",
      rule: { frequency: "weekly", interval: 1, days: ["monday", "thursday"] }
    })
    assert.strictEqual(weekly.occurrences.length, 52)
    assert.strictEqual(weekly.rrule, "FREQ=WEEKLY;BYDAY=MO,TH;WKST=MO;COUNT=52")
  })
  it("never later than one year from now (inclusive), even with a larger count", () => {
    const e = expand({
      start: "2025-06-02T10:00",
      rule: { frequency: "weekly", interval: 1, days: [] },
      ends: { type: "after_count", count: 52 }
    })
    const horizon = new Date("2026-01-01T00:00:00Z").getTime()
    assert.isBelow(e.occurrences.length, 52)
    assert.isAtMost(e.occurrences.at(-1)!.start.getTime(), horizon)
    assert.isAbove(e.occurrences.at(-1)!.start.getTime() + 7 * 86_400_000, horizon)
    assert.strictEqual(e.occurrences.length, 31)
    const edge = expand({
      start: "2025-12-31T00:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 5 }
    })
    assert.deepStrictEqual(edge.occurrences.map((o) => o.date), ["2025-12-31", "2026-01-01"])
  })
  it("a start more than one year ahead has no occurrence: 422 start_time", () => {
    const issues = issuesOf({ start: "2026-02-01T10:00", rule: { frequency: "daily", interval: 1 } })
    assert.deepStrictEqual(issues.map((i) => i.field), ["start_time"])
  })
})

describe("ends on a date", () => {
  it("is inclusive", () => {
    const e = expand({
      start: "2025-01-06T10:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "on_date", date: "2025-01-10" }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), [
      "2025-01-06",
      "2025-01-07",
      "2025-01-08",
      "2025-01-09",
      "2025-01-10"
    ])
    assert.strictEqual(e.rrule, "FREQ=DAILY;COUNT=5")
  })
  it("compares dates in the community's zone", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-01-06T23:30",
      zone,
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "on_date", date: "2025-01-08" }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-06", "2025-01-07", "2025-01-08"])
  })
  it("on the start date gives one occurrence; the 52 and one-year caps still apply", () => {
    const one = expand({
      start: "2025-01-06T10:00",
      rule: { frequency: "weekly", interval: 1, days: [] },
      ends: { type: "on_date", date: "2025-01-06" }
    })
    assert.strictEqual(one.occurrences.length, 1)
    const capped = expand({
      start: "2025-01-02T10:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "on_date", date: "2025-12-31" }
    })
    assert.strictEqual(capped.occurrences.length, 52)
    const year = expand({
      start: "2025-01-15T10:00",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "on_date", date: "2030-01-01" }
    })
    assert.strictEqual(year.occurrences.length, 12)
  })
  it("before the start: 422 recurrence_ends_on_date", () => {
    const issues = issuesOf({
      start: "2025-01-06T10:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "on_date", date: "2025-01-05" }
    })
    assert.deepStrictEqual(issues.map((i) => i.field), ["recurrence_ends_on_date"])
  })
  it("a date before the first chosen day: 422 recurrence_ends_on_date", () => {
    const issues = issuesOf({
      start: "2025-01-07T10:00",
      rule: { frequency: "weekly", interval: 1, days: ["monday"] },
      ends: { type: "on_date", date: "2025-01-10" }
    })
    assert.deepStrictEqual(issues.map((i) => i.field), ["recurrence_ends_on_date"])
  })
})

describe("custom RRULE", () => {
  const custom = (rrule: string): RecurrenceRule => ({ frequency: "custom", rrule })

  it("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10, with and without the RRULE: prefix", () => {
    const bare = expand({ start: "2025-01-06T10:00", rule: custom("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10") })
    const prefixed = expand({ start: "2025-01-06T10:00", rule: custom("RRULE:FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10") })
    assert.strictEqual(bare.occurrences.length, 10)
    assert.deepStrictEqual(utc(prefixed), utc(bare))
    assert.deepStrictEqual(bare.occurrences.slice(0, 4).map((o) => o.date), [
      "2025-01-06",
      "2025-01-08",
      "2025-01-13",
      "2025-01-15"
    ])
    assert.strictEqual(bare.rrule, "FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10")
    assertStoredRuleMatches(bare)
    const lower = expand({ start: "2025-01-06T10:00", rule: custom("rrule:freq=weekly;byday=mo,we;count=3") })
    assert.strictEqual(lower.occurrences.length, 3)
  })
  it("UNTIL ends the series (inclusive)", () => {
    const e = expand({ start: "2025-01-06T10:00", rule: custom("FREQ=DAILY;UNTIL=20250110T235959Z") })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), [
      "2025-01-06",
      "2025-01-07",
      "2025-01-08",
      "2025-01-09",
      "2025-01-10"
    ])
    assert.strictEqual(e.rrule, "FREQ=DAILY;COUNT=5")
  })
  it("monthly by weekday position (last Friday), in Berlin wall-clock time", () => {
    const zone = "Europe/Berlin"
    const e = expand({ start: "2025-01-31T18:00", zone, rule: custom("FREQ=MONTHLY;BYDAY=-1FR;COUNT=4") })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-31", "2025-02-28", "2025-03-28", "2025-04-25"])
    assert.isTrue(local(e, zone).every((t) => t.endsWith("18:00")))
    assert.deepStrictEqual(utc(e).map((t) => t.slice(11)), ["17:00", "17:00", "17:00", "16:00"])
    assertStoredRuleMatches(e)
  })
  it("keeps wall-clock time across DST (America/New_York, weekly on Sunday over the November change)", () => {
    const zone = "America/New_York"
    const e = expand({ start: "2025-10-26T11:00", zone, rule: custom("FREQ=WEEKLY;BYDAY=SU;COUNT=3") })
    assert.deepStrictEqual(utc(e), ["2025-10-26T15:00", "2025-11-02T16:00", "2025-11-09T16:00"])
  })
  it("also obeys 52 and one year", () => {
    assert.strictEqual(expand({ start: "2025-01-02T10:00", rule: custom("FREQ=DAILY") }).occurrences.length, 52)
    assert.strictEqual(
      expand({ start: "2025-01-02T10:00", rule: custom("FREQ=DAILY;COUNT=400") }).occurrences.length,
      52
    )
    assert.strictEqual(expand({ start: "2025-01-15T10:00", rule: custom("FREQ=MONTHLY") }).occurrences.length, 12)
    const ends = expand({
      start: "2025-01-06T10:00",
      rule: custom("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=10"),
      ends: { type: "after_count", count: 3 }
    })
    assert.strictEqual(ends.occurrences.length, 3)
    const onDate = expand({
      start: "2025-01-06T10:00",
      rule: custom("FREQ=DAILY"),
      ends: { type: "on_date", date: "2025-01-08" }
    })
    assert.strictEqual(onDate.occurrences.length, 3)
  })
  it("a start that the rule does not match: the series begins at the rule's first date", () => {
    const e = expand({ start: "2025-01-07T10:00", rule: custom("FREQ=WEEKLY;BYDAY=MO,WE;COUNT=3") })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-08", "2025-01-13", "2025-01-15"])
    assertStoredRuleMatches(e)
  })
  it("refuses what does not parse or is not a series of events: 422 field rrule", () => {
    for (
      const bad of [
        "FREQ=FOO",
        "garbage",
        "",
        "COUNT=3",
        "FREQ=WEEKLY;BYDAY=XX",
        "FREQ=WEEKLY;INTERVAL=0",
        "FREQ=WEEKLY;INTERVAL=abc",
        "FREQ=WEEKLY;UNTIL=2025",
        "FREQ=HOURLY;COUNT=3",
        "FREQ=MINUTELY",
        "FREQ=DAILY;BYMONTH=2;BYMONTHDAY=30",
        "FREQ=WEEKLY;BYDAY=1MO",
        "FREQ=MONTHLY;BYMONTHDAY=32",
        "FREQ=YEARLY;BYYEARDAY=100",
        "DTSTART:20250101T100000Z\nRRULE:FREQ=DAILY"
      ]
    ) {
      const parsed = parseRRule(bad)
      assert.isTrue(Either.isLeft(parsed), bad)
      const issues = issuesOf({ start: "2025-01-06T10:00", rule: custom(bad) })
      assert.deepStrictEqual(issues.map((i) => i.field), ["rrule"], bad)
    }
  })
  it("a rule that never matches within a year: 422 field rrule, quickly", () => {
    const started = Date.now()
    const issues = issuesOf({ start: "2025-01-06T10:00", rule: custom("FREQ=MONTHLY;BYMONTH=2;BYMONTHDAY=30") })
    assert.deepStrictEqual(issues.map((i) => i.field), ["rrule"])
    assert.isBelow(Date.now() - started, 3_000)
  })
})

describe("recurrenceOf (the create body's recurrence fields)", () => {
  it("defaults: interval 1, after_count with no count", () => {
    const result = recurrenceOf({ recurrence_frequency: "daily" })
    assert.deepStrictEqual(
      result,
      Either.right({ rule: { frequency: "daily", interval: 1 }, ends: { type: "after_count", count: undefined } })
    )
  })
  it("reports every bad field together", () => {
    const result = recurrenceOf({
      recurrence_frequency: "custom",
      recurrence_days: ["monday", "someday"],
      recurrence_ends_type: "on_date"
    })
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.sameMembers(result.left.map((i) => i.field), ["recurrence_days", "rrule", "recurrence_ends_on_date"])
    }
  })
  it("ignores the end date for after_count and the count for on_date", () => {
    const count = recurrenceOf({
      recurrence_frequency: "weekly",
      recurrence_days: ["Fri"],
      recurrence_ends_on_date: "2025-01-01",
      recurrence_ends_after_count: 4
    })
    assert.deepStrictEqual(
      count,
      Either.right({
        rule: { frequency: "weekly", interval: 1, days: ["friday"] },
        ends: { type: "after_count", count: 4 }
      })
    )
    const date = recurrenceOf({
      recurrence_frequency: "monthly",
      recurrence_day_of_month: 31,
      recurrence_ends_type: "on_date",
      recurrence_ends_on_date: "2025-06-30",
      recurrence_ends_after_count: 4
    })
    assert.deepStrictEqual(
      date,
      Either.right({
        rule: { frequency: "monthly", interval: 1, dayOfMonth: 31 },
        ends: { type: "on_date", date: "2025-06-30" }
      })
    )
  })
})
