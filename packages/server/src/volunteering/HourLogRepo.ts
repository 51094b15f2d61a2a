import { HourLogId, HourLogStatus, HourPayment, OpportunityId, OrganisationId, UserId } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"
import type { PageQuery } from "./VolunteeringPage.js"

const pad = (n: number) => String(n).padStart(2, "0")

/** `YYYY-MM-DD` of a `date` column, whichever way pg handed it over. */
export const isoDate = (value: Date | string): string =>
  typeof value === "string"
    ? value.slice(0, 10)
    : `${value.getFullYear()}-${pad(value.getMonth() + 1)}-${pad(value.getDate())}`

/** A `date` column: pg hands it over as a local-midnight Date (`date::text` as a string); read as `YYYY-MM-DD`. */
const DateColumn = Schema.transform(Schema.Union(Schema.DateFromSelf, Schema.String), Schema.String, {
  strict: true,
  decode: isoDate,
  encode: (date) => date
})

/** A row of `vol_hours`: the one read shape of an hour log, for the member's list and the dashboard's. */
export const HourLogRow = Schema.Struct({
  id: dbId(HourLogId),
  organisation_id: dbId(OrganisationId),
  opportunity_id: Schema.NullOr(dbId(OpportunityId)),
  user_id: dbId(UserId),
  date: DateColumn,
  hours: DbNumeric,
  description: Schema.String,
  status: HourLogStatus,
  reviewed_by: Schema.NullOr(DbInt),
  reviewed_at: Schema.NullOr(DbDate),
  payment_status: HourPayment.fields.status,
  transaction_id: Schema.NullOr(DbInt),
  created_at: DbDate
})
export type HourLogRow = typeof HourLogRow.Type

export const hourLogRows = decodeRows(HourLogRow)
const firstHourLog = decodeFirst(HourLogRow)

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

    return {
      findById: db.findById("vol_hours", HourLogRow),

      insert: (row: HourLogInsert) =>
        db.query((tenantId) =>
          sql`
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
          } RETURNING *`.pipe(decodeSingle(HourLogRow))
        ),

      /**
       * Pending → approved in one statement: of two approvals sent at once only one gets the row back. With
       * `autoPay` the payment becomes `pending`, to be made after the commit.
       */
      approve: (id: number, reviewedBy: number, autoPay: boolean) =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_hours
            SET status = 'approved', payment_status = ${autoPay ? "pending" : "none"},
                reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending'
            RETURNING *`.pipe(firstHourLog)
        ),

      /** Pending → declined in one statement (`none` when it was not pending any more). */
      decline: (id: number, reviewedBy: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_hours
            SET status = 'declined', reviewed_by = ${reviewedBy}, reviewed_at = now(), updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'pending'
            RETURNING *`.pipe(firstHourLog)
        ),

      /** The ledger paid the log (the same transaction whichever request asked: the key is the log's). */
      recordPaid: (id: number, transactionId: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_hours SET payment_status = 'paid', transaction_id = ${transactionId}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id}
            RETURNING *`.pipe(firstHourLog)
        ),

      /** The wallet could not cover it; never overwrites a payment another request recorded meanwhile. */
      recordInsufficient: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE vol_hours SET payment_status = 'insufficient_balance', updated_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND payment_status <> 'paid'
            RETURNING *`.pipe(firstHourLog)
        ),

      /** The member's hour logs, newest first (index `vol_hours_user`). */
      byUser: (userId: number, page: PageQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT * FROM vol_hours
            WHERE tenant_id = ${tenantId} AND user_id = ${userId}
              ${page.before === undefined ? sql`` : sql`AND id < ${page.before}`}
            ORDER BY id DESC LIMIT ${page.limit}`.pipe(hourLogRows)
        )
    } as const
  })
}) {}
