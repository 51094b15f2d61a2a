import { type Cents, centsFromNumeric } from "@timebank/domain"
import { Effect, Option } from "effect"
import { TenantSql } from "../platform/TenantSql.js"

export interface MemberTransactionRow {
  readonly id: string
  readonly type: string
  readonly amount: string
  readonly sender_id: string | null
  readonly recipient_id: string | null
  readonly description: string
  readonly listing_id: string | null
  readonly created_at: Date
  readonly outgoing: boolean
}

/** Reads of the ledger for members: balances and the transactions their account took part in. */
export class LedgerRepo extends Effect.Service<LedgerRepo>()("LedgerRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const memberEntries = (tenantId: number, userId: number) =>
      sql`
        SELECT t.id, t.type, t.amount, t.sender_id, t.recipient_id, t.description, t.listing_id, t.created_at,
               e.amount < 0 AS outgoing
        FROM ledger_accounts a
        JOIN ledger_entries e ON e.account_id = a.id
        JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE a.tenant_id = ${tenantId} AND a.kind = 'member' AND a.owner_id = ${userId}`

    return {
      memberBalance: (userId: number) =>
        db.query((tenantId) =>
          sql<{ balance: string }>`
            SELECT balance FROM ledger_accounts
            WHERE tenant_id = ${tenantId} AND kind = 'member' AND owner_id = ${userId}`.pipe(
            Effect.map((rows): Cents => (rows[0] ? centsFromNumeric(rows[0].balance) : 0))
          )
        ),
      /** Newest first, `limit` rows after the transaction id `before` (exclusive). */
      memberTransactions: (userId: number, before: number | undefined, limit: number) =>
        db.query((tenantId) =>
          sql<MemberTransactionRow>`
            ${memberEntries(tenantId, userId)} AND e.transaction_id < ${before ?? Number.MAX_SAFE_INTEGER}
            ORDER BY e.transaction_id DESC
            LIMIT ${limit}`
        ),
      memberTransaction: (userId: number, transactionId: number) =>
        db.query((tenantId) =>
          sql<MemberTransactionRow>`${memberEntries(tenantId, userId)} AND t.id = ${transactionId}`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]))
          )
        )
    } as const
  })
}) {}
