import { assert, describe, it } from "@effect/vitest"
import {
  clampDayOfMonth,
  clampOccurrenceCount,
  expandRecurrence,
  type Expansion,
  type ExpansionInput,
  parseRRule,
  parseWeekday,
  parseWeekdays,
  type RecurrenceEnds,
  recurrenceOf,
  type RecurrenceRule
} from "@timebank/server"
import { Either } from "effect"
import { DateTime } from "luxon"
import rrulePackage from "rrule"

const { RRule } = rrulePackage

const NOW = "2025-01-01T00:00:00Z"

interface Case {
  readonly start: string
  readonly zone?: string
  readonly now?: string
  readonly rule: RecurrenceRule
  readonly ends?: RecurrenceEnds
}

const inputOf = (c: Case): ExpansionInput => {
  const zone = c.zone ?? "UTC"
  return {
    start: DateTime.fromISO(c.start, { zone }).toJSDate(),
    timezone: zone,
    now: new Date(c.now ?? NOW),
    rule: c.rule,
    ends: c.ends ?? { type: "after_count" }
  }
}

const expand = (c: Case): Expansion => {
  const result = expandRecurrence(inputOf(c))
  if (Either.isLeft(result)) assert.fail(`expected occurrences, got ${JSON.stringify(result.left)}`)
  return result.right
}

const issuesOf = (c: Case) => {
  const result = expandRecurrence(inputOf(c))
  if (Either.isRight(result)) assert.fail(`expected issues, got ${result.right.occurrences.length} occurrences`)
  return result.left
}

/** Occurrences as wall-clock times of the zone. */
const local = (e: Expansion, zone = "UTC") =>
  e.occurrences.map((o) => DateTime.fromJSDate(o.start, { zone }).toFormat("yyyy-MM-dd HH:mm"))
const utc = (e: Expansion) => e.occurrences.map((o) => o.start.toISOString().slice(0, 16))

/** Expands the stored RRULE with the library from the first occurrence, as a calendar reading our ICS would. */
const expandStored = (e: Expansion) => {
  const first = DateTime.fromJSDate(e.occurrences[0]!.start, { zone: e.timezone })
  const floating = (d: DateTime) => new Date(Date.UTC(d.year, d.month - 1, d.day, d.hour, d.minute))
  const rule = new RRule({ ...RRule.parseString(e.rrule), dtstart: floating(first) })
  return rule.all((_, i) => i < 60).map((d) =>
    DateTime.fromObject({
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
      hour: d.getUTCHours(),
      minute: d.getUTCMinutes()
    }, { zone: e.timezone }).toJSDate().toISOString()
  )
}
const assertStoredRuleMatches = (e: Expansion) =>
  assert.deepStrictEqual(expandStored(e), e.occurrences.map((o) => o.start.toISOString()))

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
