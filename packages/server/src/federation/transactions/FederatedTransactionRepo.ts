import { FederatedTransactionId, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `federation_transactions`. */
export const FederatedTransactionRow = Schema.Struct({
  id: dbId(FederatedTransactionId),
  partner_id: DbInt,
  external_id: Schema.String,
  request_hash: Schema.String,
  transaction_id: DbInt,
  recipient_id: dbId(UserId),
  amount: DbNumeric,
  description: Schema.String,
  sender_name: Schema.String,
  sender_external_id: Schema.String,
  refund_transaction_id: Schema.NullOr(DbInt),
  created_at: DbDate
})
export type FederatedTransactionRow = typeof FederatedTransactionRow.Type

const COLUMNS = "id, partner_id, external_id, request_hash, transaction_id, recipient_id, amount, description, " +
  "sender_name, sender_external_id, refund_transaction_id, created_at"

const first = decodeFirst(FederatedTransactionRow)
const all = decodeRows(FederatedTransactionRow)

export interface NewFederatedTransaction {
  readonly partnerId: number
  readonly externalId: string
  readonly requestHash: string
  readonly transactionId: number
  readonly recipientId: number
  /** Hours, as the numeric column takes them (`"2.50"`). */
  readonly amount: string
  readonly description: string
  readonly senderName: string
  readonly senderExternalId: string
}

/** The record of each credit a partner sent (the ledger holds the money; this row holds the partner's names). */
export class FederatedTransactionRepo extends Effect.Service<FederatedTransactionRepo>()("FederatedTransactionRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    const byExternalId = (partnerId: number, externalId: string) =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM federation_transactions
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND external_id = ${externalId}`.pipe(first)
      )

    return {
      byExternalId,

      /**
       * Records a posted credit once: concurrent requests of one `external_id` (one ledger transaction, by its
       * idempotency key) all insert, one row stays, and each reads that row back.
       */
      record: (t: NewFederatedTransaction) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_transactions ${
            sql.insert({
              tenant_id: tenantId,
              partner_id: t.partnerId,
              external_id: t.externalId,
              request_hash: t.requestHash,
              transaction_id: t.transactionId,
              recipient_id: t.recipientId,
              amount: t.amount,
              description: t.description,
              sender_name: t.senderName,
              sender_external_id: t.senderExternalId
            })
          }
            ON CONFLICT (partner_id, external_id) DO NOTHING`
        ).pipe(
          Effect.zipRight(byExternalId(t.partnerId, t.externalId)),
          Effect.flatMap(Option.match({
            onNone: () => Effect.dieMessage("federation transaction missing after its insert"),
            onSome: Effect.succeed
          }))
        ),

      /** A partner's transaction by our id (another partner's is none). */
      find: (partnerId: number, id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_transactions
              WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND id = ${id}`.pipe(first)
        ),

      /** A partner's transactions, newest first, older than `before` (index `federation_transactions_partner`). */
      page: (partnerId: number, q: { readonly before?: number | undefined; readonly limit: number }) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_transactions
              WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId}
                ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
              ORDER BY id DESC LIMIT ${q.limit}`.pipe(all)
        ),

      /** Notes the refund; false when the row already had one (a concurrent cancel won). */
      markRefunded: (id: number, refundTransactionId: number) =>
        db.query((tenantId) =>
          sql`UPDATE federation_transactions SET refund_transaction_id = ${refundTransactionId}
              WHERE tenant_id = ${tenantId} AND id = ${id} AND refund_transaction_id IS NULL
              RETURNING id`.pipe(decodeRows(Schema.Struct({ id: DbInt })), Effect.map((rows) => rows.length > 0))
        )
    } as const
  })
}) {}
