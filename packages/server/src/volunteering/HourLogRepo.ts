import { Effect, Option } from "effect"
import { TenantSql } from "../platform/TenantSql.js"
import type { HourLogRow } from "./VolunteeringViews.js"

/** A full row of `vol_hours`. */
export interface HourLogRecord extends HourLogRow {
  readonly tenant_id: string
  readonly reviewed_by: string | null
  readonly updated_at: Date
}

export interface HourLogInsert {
  readonly organisationId: number
  readonly opportunityId: number | null
  readonly userId: number
  readonly date: string
  readonly hours: number
  readonly description: string
}

/** Hours members logged for the current tenant's organisations, and what auto-pay did for them. */
export class HourLogRepo extends Effect.Service<HourLogRepo>()("HourLogRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const first = (rows: ReadonlyArray<HourLogRecord>) => Option.fromNullable(rows[0])

    return {
      findById: (id: number) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`SELECT * FROM vol_hours WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(
            Effect.map(first)
          )
        ),

      insert: (row: HourLogInsert) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            INSERT INTO vol_hours ${
            sql.insert({
              tenant_id: tenantId,
              organisation_id: row.organisationId,
              opportunity_id: row.opportunityId,
              user_id: row.userId,
              date: row.date,
              hours: row.hours.toFixed(2),
              description: row.description,
              status: "pending"
            })
          } RETURNING *`.pipe(Effect.map((rows) => rows[0]!))
        ),

      /**
       * Pending → approved in one statement: of two approvals sent at once only one gets the row back. With
       * `autoPay` the payment becomes `pending`, to be made after the commit.
       */
      approve: (id: number, reviewedBy: number, autoPay: boolean) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            UPDATE vol_hours
            SET status = 'approved', payment_status = ${autoPay ? "pending" : "none"},
                reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending'
            RETURNING *`.pipe(Effect.map(first))
        ),

      /** Pending → declined in one statement (`none` when it was not pending any more). */
      decline: (id: number, reviewedBy: number) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            UPDATE vol_hours
            SET status = 'declined', reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending'
            RETURNING *`.pipe(Effect.map(first))
        ),

      /** The ledger paid the log (the same transaction whichever request asked: the key is the log's). */
      recordPaid: (id: number, transactionId: number) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            UPDATE vol_hours SET payment_status = 'paid', transaction_id = ${transactionId}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(Effect.map(first))
        ),

      /** The wallet could not cover it; never overwrites a payment another request recorded meanwhile. */
      recordInsufficient: (id: number) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            UPDATE vol_hours SET payment_status = 'insufficient_balance', updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND payment_status <> 'paid'
            RETURNING *`.pipe(Effect.map(first))
        ),

      /** The member's hour logs, newest first (index `vol_hours_user`); `limit` is page size + 1. */
      byUser: (userId: number, before: number | undefined, limit: number) =>
        db.query((tenantId) =>
          sql<HourLogRecord>`
            SELECT * FROM vol_hours
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ${before === undefined ? sql`` : sql`AND id < ${before}`}
            ORDER BY id DESC LIMIT ${limit}`
        )
    } as const
  })
}) {}
