import { FederationPartnerId, FederationTransferId, TransactionId, UserId } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

const Failure = Schema.Struct({ http_status: Schema.NullOr(Schema.Int), detail: Schema.String })

/** A row of `federation_outbound_transfers`. */
export const OutboundTransferRow = Schema.Struct({
  id: dbId(FederationTransferId),
  partner_id: dbId(FederationPartnerId),
  user_id: dbId(UserId),
  uuid: Schema.String,
  idempotency_key: Schema.NullOr(Schema.String),
  request_hash: Schema.String,
  recipient: Schema.String,
  amount: DbNumeric,
  description: Schema.String,
  status: Schema.Literal("pending", "completed", "failed"),
  remote_id: Schema.NullOr(Schema.String),
  remote_amount: Schema.NullOr(Schema.String),
  transaction_id: Schema.NullOr(dbId(TransactionId)),
  reversal_transaction_id: Schema.NullOr(dbId(TransactionId)),
  failure: Schema.NullOr(Failure),
  outcome_unknown: Schema.Boolean,
  created_at: DbDate,
  updated_at: DbDate
})
export type OutboundTransferRow = typeof OutboundTransferRow.Type

const COLUMNS = "id, partner_id, user_id, uuid::text AS uuid, idempotency_key, request_hash, recipient, amount, " +
  "description, status, remote_id, remote_amount, transaction_id, reversal_transaction_id, failure, " +
  "outcome_unknown, created_at, updated_at"

const first = decodeFirst(OutboundTransferRow)
const all = decodeRows(OutboundTransferRow)

export interface NewOutboundTransfer {
  readonly partnerId: number
  readonly userId: number
  readonly uuid: string
  readonly idempotencyKey: string | null
  readonly requestHash: string
  readonly recipient: string
  /** Hours, as the numeric column takes them (`"2.50"`). */
  readonly amount: string
  readonly description: string
  readonly remoteAmount: string
}

/** How a sent transfer ended at the partner. */
export type Settlement =
  | { readonly _tag: "Completed"; readonly remoteId: string | null }
  | {
    readonly _tag: "Failed"
    readonly reversalTransactionId: number
    readonly failure: typeof Failure.Type
    readonly outcomeUnknown: boolean
  }

/** Our members' transfers to partners' members: the ledger holds the money, this row the partner's side of it. */
export class OutboundTransfersRepo extends Effect.Service<OutboundTransfersRepo>()("OutboundTransfersRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    const byKey = (userId: number, key: string) =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM federation_outbound_transfers
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND idempotency_key = ${key}`.pipe(first)
      )

    /** A member's own transfer (another member's or community's is none). */
    const find = (userId: number, id: number) =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM federation_outbound_transfers
            WHERE tenant_id = ${tenantId} AND user_id = ${userId} AND id = ${id}`.pipe(first)
      )

    const byUuid = (uuid: string) =>
      db.query((tenantId) =>
        sql`SELECT ${columns} FROM federation_outbound_transfers
            WHERE tenant_id = ${tenantId} AND uuid = ${uuid}`.pipe(first)
      )

    const mustFind = (uuid: string) =>
      Effect.flatMap(
        byUuid(uuid),
        Option.match({
          onNone: () => Effect.dieMessage(`outbound transfer ${uuid} missing`),
          onSome: Effect.succeed
        })
      )

    return {
      byKey,
      find,

      /**
       * Records a pending transfer. `inserted` false when a concurrent request of the same member and
       * Idempotency-Key got there first: `row` is then that request's transfer.
       */
      insertPending: (t: NewOutboundTransfer) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_outbound_transfers ${
            sql.insert({
              tenant_id: tenantId,
              partner_id: t.partnerId,
              user_id: t.userId,
              uuid: t.uuid,
              idempotency_key: t.idempotencyKey,
              request_hash: t.requestHash,
              recipient: t.recipient,
              amount: t.amount,
              description: t.description,
              remote_amount: t.remoteAmount
            })
          }
            ON CONFLICT (tenant_id, user_id, idempotency_key) DO NOTHING
            RETURNING id`.pipe(decodeRows(Schema.Struct({ id: DbInt })))
        ).pipe(
          Effect.flatMap((inserted) =>
            inserted.length > 0 || t.idempotencyKey === null
              ? Effect.map(mustFind(t.uuid), (row) => ({ inserted: true, row }))
              : Effect.flatMap(
                byKey(t.userId, t.idempotencyKey),
                Option.match({
                  onNone: () => Effect.dieMessage("outbound transfer missing after an idempotency conflict"),
                  onSome: (row) => Effect.succeed({ inserted: false, row })
                })
              )
          )
        ),

      /** Forgets a pending transfer whose debit the ledger refused: nothing moved, so nothing stays. */
      deletePending: (uuid: string) =>
        db.query((tenantId) =>
          sql`DELETE FROM federation_outbound_transfers
              WHERE tenant_id = ${tenantId} AND uuid = ${uuid} AND status = 'pending' AND transaction_id IS NULL`
        ).pipe(Effect.asVoid),

      /** The community's transfers still `pending` that were created before `before`, oldest first. */
      pendingBefore: (before: Date, limit: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_outbound_transfers
              WHERE tenant_id = ${tenantId} AND status = 'pending' AND created_at < ${before}
              ORDER BY created_at, id LIMIT ${limit}`.pipe(all)
        ),

      debited: (uuid: string, transactionId: number) =>
        db.query((tenantId) =>
          sql`UPDATE federation_outbound_transfers SET transaction_id = ${transactionId}, updated_at = now()
              WHERE tenant_id = ${tenantId} AND uuid = ${uuid}`
        ).pipe(Effect.asVoid),

      /** Settles a pending transfer and reads it back. */
      settle: (uuid: string, settlement: Settlement) =>
        db.query((tenantId) =>
          settlement._tag === "Completed"
            ? sql`UPDATE federation_outbound_transfers
                  SET status = 'completed', remote_id = ${settlement.remoteId}, updated_at = now()
                  WHERE tenant_id = ${tenantId} AND uuid = ${uuid} AND status = 'pending'`
            : sql`UPDATE federation_outbound_transfers
                  SET status = 'failed', reversal_transaction_id = ${settlement.reversalTransactionId},
                      failure = ${JSON.stringify(settlement.failure)}::jsonb,
                      outcome_unknown = ${settlement.outcomeUnknown}, updated_at = now()
                  WHERE tenant_id = ${tenantId} AND uuid = ${uuid} AND status = 'pending'`
        ).pipe(Effect.zipRight(mustFind(uuid))),

      /** A member's transfers, newest first, older than `before` (index `federation_outbound_transfers_member`). */
      page: (userId: number, q: { readonly before?: number | undefined; readonly limit: number }) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_outbound_transfers
              WHERE tenant_id = ${tenantId} AND user_id = ${userId}
                ${q.before === undefined ? sql`` : sql`AND id < ${q.before}`}
              ORDER BY id DESC LIMIT ${q.limit}`.pipe(all)
        )
    } as const
  })
}) {}
