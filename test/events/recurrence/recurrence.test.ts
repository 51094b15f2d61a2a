import { assert, describe, it } from "@effect/vitest"
import { clampDayOfMonth, clampOccurrenceCount, expandRecurrence, parseWeekday, parseWeekdays } from "@timebank/server"
import { Either } from "effect"
import { assertStoredRuleMatches, expand, local, NOW, utc } from "./expansionCases.js"

describe("day names", () => {
  it("accepts monday..sunday and mon..sun in any case", () => {
    assert.strictEqual(parseWeekday("Monday"), "monday")
    assert.strictEqual(parseWeekday("TUE"), "tuesday")
    assert.strictEqual(parseWeekday(" thu "), "thursday")
    assert.strictEqual(parseWeekday("sun"), "sunday")
    assert.isUndefined(parseWeekday("mo"))
    assert.isUndefined(parseWeekday("funday"))
    assert.isUndefined(parseWeekday(""))
  })
  it("puts days in week order without repeats, or names the first bad one (field recurrence_days)", () => {
    assert.deepStrictEqual(
      parseWeekdays(["fri", "Monday", "mon", "WED"]),
      Either.right(["monday", "wednesday", "friday"])
    )
    assert.deepStrictEqual(parseWeekdays([]), Either.right([]))
    const bad = parseWeekdays(["monday", "noday"])
    assert.isTrue(Either.isLeft(bad))
    if (Either.isLeft(bad)) {
      assert.strictEqual(bad.left.field, "recurrence_days")
      assert.include(bad.left.message, "noday")
    }
  })
})

describe("limits", () => {
  it("clamps the count to 52; no count means 52", () => {
    assert.strictEqual(clampOccurrenceCount(undefined), 52)
    assert.strictEqual(clampOccurrenceCount(1), 1)
    assert.strictEqual(clampOccurrenceCount(52), 52)
    assert.strictEqual(clampOccurrenceCount(53), 52)
    assert.strictEqual(clampOccurrenceCount(10_000), 52)
  })
  it("clamps an anchor day to the month's last day (31 → 30 April, 28/29 February)", () => {
    assert.strictEqual(clampDayOfMonth(2025, 1, 31), 31)
    assert.strictEqual(clampDayOfMonth(2025, 2, 31), 28)
    assert.strictEqual(clampDayOfMonth(2024, 2, 31), 29)
    assert.strictEqual(clampDayOfMonth(2024, 2, 29), 29)
    assert.strictEqual(clampDayOfMonth(2100, 2, 29), 28)
    assert.strictEqual(clampDayOfMonth(2000, 2, 30), 29)
    assert.strictEqual(clampDayOfMonth(2025, 4, 31), 30)
    assert.strictEqual(clampDayOfMonth(2025, 2, 15), 15)
  })
})

describe("daily", () => {
  it("repeats every day at the same time, dated in the zone", () => {
    const e = expand({
      start: "2025-01-06T10:00",
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(local(e), ["2025-01-06 10:00", "2025-01-07 10:00", "2025-01-08 10:00"])
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-06", "2025-01-07", "2025-01-08"])
    assert.strictEqual(e.rrule, "FREQ=DAILY;COUNT=3")
    assertStoredRuleMatches(e)
  })
  it("every third day across a month end", () => {
    const e = expand({
      start: "2025-01-28T18:00",
      rule: { frequency: "daily", interval: 3 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(local(e), ["2025-01-28 18:00", "2025-01-31 18:00", "2025-02-03 18:00", "2025-02-06 18:00"])
    assert.strictEqual(e.rrule, "FREQ=DAILY;INTERVAL=3;COUNT=4")
    assertStoredRuleMatches(e)
  })
  it("keeps 10:00 local in Europe/Berlin when the clocks go forward (UTC moves from 09:00 to 08:00)", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-03-28T10:00",
      zone,
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(local(e, zone), [
      "2025-03-28 10:00",
      "2025-03-29 10:00",
      "2025-03-30 10:00",
      "2025-03-31 10:00"
    ])
    assert.deepStrictEqual(utc(e), ["2025-03-28T09:00", "2025-03-29T09:00", "2025-03-30T08:00", "2025-03-31T08:00"])
    assertStoredRuleMatches(e)
  })
  it("keeps 09:00 local in America/New_York when the clocks go back (UTC moves from 13:00 to 14:00)", () => {
    const zone = "America/New_York"
    const e = expand({
      start: "2025-10-31T09:00",
      zone,
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(local(e, zone), [
      "2025-10-31 09:00",
      "2025-11-01 09:00",
      "2025-11-02 09:00",
      "2025-11-03 09:00"
    ])
    assert.deepStrictEqual(utc(e), ["2025-10-31T13:00", "2025-11-01T13:00", "2025-11-02T14:00", "2025-11-03T14:00"])
    assertStoredRuleMatches(e)
  })
  it("a local date is the zone's date, not UTC's (23:30 in Berlin is 22:30 UTC the same day; 00:30 is the day before in UTC)", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-01-06T00:30",
      zone,
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 2 }
    })
    assert.deepStrictEqual(utc(e), ["2025-01-05T23:30", "2025-01-06T23:30"])
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-06", "2025-01-07"])
  })
})

describe("zones", () => {
  it("a zone luxon does not know falls back to UTC", () => {
    const e = expandRecurrence({
      start: new Date("2025-01-06T10:00:00Z"),
      timezone: "Not/AZone",
      now: new Date(NOW),
      rule: { frequency: "daily", interval: 1 },
      ends: { type: "after_count", count: 2 }
    })
    assert.isTrue(Either.isRight(e))
    if (Either.isRight(e)) {
      assert.strictEqual(e.right.timezone, "UTC")
      assert.deepStrictEqual(utc(e.right), ["2025-01-06T10:00", "2025-01-07T10:00"])
    }
  })
})

describe("weekly", () => {
  it("defaults to the start's weekday", () => {
    const e = expand({
      start: "2025-01-08T10:00",
      rule: { frequency: "weekly", interval: 1, days: [] },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(local(e), ["2025-01-08 10:00", "2025-01-15 10:00", "2025-01-22 10:00"])
    assert.deepStrictEqual(e.days, ["wednesday"])
    assert.strictEqual(e.rrule, "FREQ=WEEKLY;BYDAY=WE;WKST=MO;COUNT=3")
  })
  it("several days a week, in week order", () => {
    const e = expand({
      start: "2025-01-06T10:00",
      rule: { frequency: "weekly", interval: 1, days: ["monday", "wednesday", "friday"] },
      ends: { type: "after_count", count: 6 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), [
      "2025-01-06",
      "2025-01-08",
      "2025-01-10",
      "2025-01-13",
      "2025-01-15",
      "2025-01-17"
    ])
    assertStoredRuleMatches(e)
  })
  it("every second week on two days, across a month end", () => {
    const e = expand({
      start: "2025-01-20T19:00",
      rule: { frequency: "weekly", interval: 2, days: ["monday", "wednesday"] },
      ends: { type: "after_count", count: 6 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), [
      "2025-01-20",
      "2025-01-22",
      "2025-02-03",
      "2025-02-05",
      "2025-02-17",
      "2025-02-19"
    ])
    assert.strictEqual(e.rrule, "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;WKST=MO;COUNT=6")
    assertStoredRuleMatches(e)
  })
  it("every third week", () => {
    const e = expand({
      start: "2025-01-07T10:00",
      rule: { frequency: "weekly", interval: 3, days: ["tuesday"] },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-07", "2025-01-28", "2025-02-18"])
  })
  it("a start on a day that is not chosen: the series begins on the first chosen day after it", () => {
    const e = expand({
      start: "2025-01-09T10:00", // a Thursday
      rule: { frequency: "weekly", interval: 2, days: ["monday", "wednesday"] },
      ends: { type: "after_count", count: 4 }
    })
    // The start's week has no chosen day left; the next week of the series is two weeks on.
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-01-20", "2025-01-22", "2025-02-03", "2025-02-05"])
    assertStoredRuleMatches(e)
  })
  it("keeps 10:00 local in Europe/Berlin when the clocks go back (UTC moves from 08:00 to 09:00)", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-10-15T10:00",
      zone,
      rule: { frequency: "weekly", interval: 1, days: [] },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(local(e, zone), ["2025-10-15 10:00", "2025-10-22 10:00", "2025-10-29 10:00"])
    assert.deepStrictEqual(utc(e), ["2025-10-15T08:00", "2025-10-22T08:00", "2025-10-29T09:00"])
    assertStoredRuleMatches(e)
  })
  it("keeps 18:30 local in America/New_York when the clocks go forward (UTC moves from 23:30 to 22:30)", () => {
    const zone = "America/New_York"
    const e = expand({
      start: "2025-03-05T18:30",
      zone,
      rule: { frequency: "weekly", interval: 1, days: ["wednesday"] },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(utc(e), ["2025-03-05T23:30", "2025-03-12T22:30", "2025-03-19T22:30"])
  })
  it("a wall-clock time the clocks skip moves forward by the gap (02:30 on the Berlin spring-forward day)", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-03-23T02:30",
      zone,
      rule: { frequency: "weekly", interval: 1, days: [] },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(local(e, zone), ["2025-03-23 02:30", "2025-03-30 03:30", "2025-04-06 02:30"])
  })
})

describe("monthly", () => {
  it("the 31st clamps to each month's last day: Feb 28, Mar 31, Apr 30", () => {
    const e = expand({
      start: "2025-01-31T10:00",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count", count: 5 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), [
      "2025-01-31",
      "2025-02-28",
      "2025-03-31",
      "2025-04-30",
      "2025-05-31"
    ])
    assert.strictEqual(e.dayOfMonth, 31)
    assert.strictEqual(e.rrule, "FREQ=MONTHLY;BYMONTHDAY=28,29,30,31;BYSETPOS=-1;COUNT=5")
    assertStoredRuleMatches(e)
  })
  it("in a leap year the 31st falls on Feb 29", () => {
    const e = expand({
      start: "2024-01-31T10:00",
      now: "2023-12-01T00:00:00Z",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2024-01-31", "2024-02-29", "2024-03-31", "2024-04-30"])
    assertStoredRuleMatches(e)
  })
  it("the 30th and the 29th clamp in February only", () => {
    const thirty = expand({
      start: "2025-01-30T10:00",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(thirty.occurrences.map((o) => o.date), ["2025-01-30", "2025-02-28", "2025-03-30"])
    assert.strictEqual(thirty.rrule, "FREQ=MONTHLY;BYMONTHDAY=28,29,30;BYSETPOS=-1;COUNT=3")
    assertStoredRuleMatches(thirty)
    const twentyNine = expand({
      start: "2025-01-29T10:00",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(twentyNine.occurrences.map((o) => o.date), ["2025-01-29", "2025-02-28", "2025-03-29"])
    assertStoredRuleMatches(twentyNine)
  })
  it("recurrence_day_of_month anchors the series (the first date on or after the start)", () => {
    const e = expand({
      start: "2025-01-20T10:00",
      rule: { frequency: "monthly", interval: 1, dayOfMonth: 15 },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(e.occurrences.map((o) => o.date), ["2025-02-15", "2025-03-15", "2025-04-15"])
    assert.strictEqual(e.rrule, "FREQ=MONTHLY;BYMONTHDAY=15;COUNT=3")
    const late = expand({
      start: "2025-01-10T10:00",
      rule: { frequency: "monthly", interval: 1, dayOfMonth: 31 },
      ends: { type: "after_count", count: 3 }
    })
    assert.deepStrictEqual(late.occurrences.map((o) => o.date), ["2025-01-31", "2025-02-28", "2025-03-31"])
  })
  it("every second and every third month from the 31st", () => {
    const two = expand({
      start: "2025-01-31T10:00",
      rule: { frequency: "monthly", interval: 2 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(two.occurrences.map((o) => o.date), ["2025-01-31", "2025-03-31", "2025-05-31", "2025-07-31"])
    const three = expand({
      start: "2025-01-31T10:00",
      rule: { frequency: "monthly", interval: 3 },
      ends: { type: "after_count", count: 4 }
    })
    assert.deepStrictEqual(three.occurrences.map((o) => o.date), [
      "2025-01-31",
      "2025-04-30",
      "2025-07-31",
      "2025-10-31"
    ])
    assert.strictEqual(three.rrule, "FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=28,29,30,31;BYSETPOS=-1;COUNT=4")
    assertStoredRuleMatches(two)
    assertStoredRuleMatches(three)
  })
  it("keeps wall-clock time in Europe/Berlin over both changes of the year", () => {
    const zone = "Europe/Berlin"
    const e = expand({
      start: "2025-02-28T19:00",
      zone,
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count", count: 10 }
    })
    assert.isTrue(local(e, zone).every((t) => t.endsWith("19:00")))
    assert.deepStrictEqual(utc(e).map((t) => t.slice(11)), [
      "18:00",
      "18:00",
      "17:00",
      "17:00",
      "17:00",
      "17:00",
      "17:00",
      "17:00",
      "18:00",
      "18:00"
    ])
    assertStoredRuleMatches(e)
  })
  it("stops at the one-year horizon: twelve months", () => {
    const e = expand({
      start: "2025-01-15T10:00",
      rule: { frequency: "monthly", interval: 1 },
      ends: { type: "after_count" }
    })
    assert.strictEqual(e.occurrences.length, 12)
    assert.strictEqual(e.occurrences.at(-1)!.date, "2025-12-15")
  })
})
