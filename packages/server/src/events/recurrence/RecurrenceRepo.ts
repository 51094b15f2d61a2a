import type { RecurrenceFrequency } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbInt, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `event_recurrence_rules` as a create writes it. */
export interface RecurrenceRuleInsert {
  readonly event_id: number
  readonly frequency: RecurrenceFrequency
  readonly interval_value: number
  readonly days_of_week: ReadonlyArray<string> | null
  readonly day_of_month: number | null
  /** The equivalent RFC 5545 RRULE for every frequency (DTSTART: the template's start in `timezone`). */
  readonly rrule: string
  readonly ends_type: "after_count" | "on_date"
  readonly ends_after_count: number | null
  readonly ends_on_date: string | null
  readonly timezone: string
}

/** The stored recurrence of a template: its RRULE text and the zone its occurrences were expanded in. */
export const StoredRule = Schema.Struct({
  event_id: DbInt,
  rrule: Schema.NullOr(Schema.String),
  timezone: Schema.String
})
export type StoredRule = typeof StoredRule.Type

/** The rules of recurring templates (`event_recurrence_rules`, one per template) in the current tenant. */
export class RecurrenceRepo extends Effect.Service<RecurrenceRepo>()("RecurrenceRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      insert: (rule: RecurrenceRuleInsert) =>
        db.query((tenantId) =>
          sql`INSERT INTO event_recurrence_rules ${
            sql.insert({
              tenant_id: tenantId,
              ...rule,
              days_of_week: rule.days_of_week === null ? null : pgArray(rule.days_of_week)
            })
          }`.pipe(Effect.asVoid)
        ),

      /** Rules by template id (unique index on event_id): one statement for a whole export. */
      byTemplates: (templateIds: ReadonlyArray<number>) =>
        templateIds.length === 0
          ? Effect.succeed(new Map<number, StoredRule>())
          : db.query((tenantId) =>
            sql`
              SELECT event_id, rrule, timezone FROM event_recurrence_rules
              WHERE tenant_id = ${tenantId} AND event_id = ANY(${pgArray(templateIds)}::bigint[])`.pipe(
              decodeRows(StoredRule),
              Effect.map((rows) => new Map(rows.map((r) => [r.event_id, r])))
            )
          )
    } as const
  })
}) {}
