// Cases and readers shared by the recurrence expansion tests (recurrence.test.ts, recurrenceEnds.test.ts).
import { assert } from "@effect/vitest"
import {
  expandRecurrence,
  type Expansion,
  type ExpansionInput,
  type RecurrenceEnds,
  type RecurrenceRule
} from "@timebank/server"
import { Either } from "effect"
import { DateTime } from "luxon"
import rrulePackage from "rrule"

const { RRule } = rrulePackage

export const NOW = "2025-01-01T00:00:00Z"

export interface Case {
  readonly start: string
  readonly zone?: string
  readonly now?: string
  readonly rule: RecurrenceRule
  readonly ends?: RecurrenceEnds
}

export const inputOf = (c: Case): ExpansionInput => {
  const zone = c.zone ?? "UTC"
  return {
    start: DateTime.fromISO(c.start, { zone }).toJSDate(),
    timezone: zone,
    now: new Date(c.now ?? NOW),
    rule: c.rule,
    ends: c.ends ?? { type: "after_count" }
  }
}

export const expand = (c: Case): Expansion => {
  const result = expandRecurrence(inputOf(c))
  if (Either.isLeft(result)) assert.fail(`expected occurrences, got ${JSON.stringify(result.left)}`)
  return result.right
}

export const issuesOf = (c: Case) => {
  const result = expandRecurrence(inputOf(c))
  if (Either.isRight(result)) assert.fail(`expected issues, got ${result.right.occurrences.length} occurrences`)
  return result.left
}

/** Occurrences as wall-clock times of the zone. */
export const local = (e: Expansion, zone = "UTC") =>
  e.occurrences.map((o) => DateTime.fromJSDate(o.start, { zone }).toFormat("yyyy-MM-dd HH:mm"))
export const utc = (e: Expansion) => e.occurrences.map((o) => o.start.toISOString().slice(0, 16))

/** Expands the stored RRULE with the library from the first occurrence, as a calendar reading our ICS would. */
export const expandStored = (e: Expansion) => {
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
export const assertStoredRuleMatches = (e: Expansion) =>
  assert.deepStrictEqual(expandStored(e), e.occurrences.map((o) => o.start.toISOString()))
