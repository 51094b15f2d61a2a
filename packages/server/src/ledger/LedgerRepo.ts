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

type OwnedAccount = "member" | "organisation"

/** Reads of the ledger for members and organisations: balances and the transactions their account took part in. */
export class LedgerRepo extends Effect.Service<LedgerRepo>()("LedgerRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    const accountEntries = (tenantId: number, kind: OwnedAccount, ownerId: number) =>
      sql`
        SELECT t.id, t.type, t.amount, t.sender_id, t.recipient_id, t.description, t.listing_id, t.created_at,
               e.amount < 0 AS outgoing
        FROM ledger_accounts a
        JOIN ledger_entries e ON e.account_id = a.id
        JOIN ledger_transactions t ON t.id = e.transaction_id
        WHERE a.tenant_id = ${tenantId} AND a.kind = ${kind} AND a.owner_id = ${ownerId}`
    const memberEntries = (tenantId: number, userId: number) => accountEntries(tenantId, "member", userId)

    const balance = (kind: OwnedAccount, ownerId: number) =>
      db.query((tenantId) =>
        sql<{ balance: string }>`
          SELECT balance FROM ledger_accounts
          WHERE tenant_id = ${tenantId} AND kind = ${kind} AND owner_id = ${ownerId}`.pipe(
          Effect.map((rows): Cents => (rows[0] ? centsFromNumeric(rows[0].balance) : 0))
        )
      )

    /** Newest first, `limit` rows after the transaction id `before` (exclusive). */
    const transactions = (kind: OwnedAccount, ownerId: number, before: number | undefined, limit: number) =>
      db.query((tenantId) =>
        sql<MemberTransactionRow>`
          ${accountEntries(tenantId, kind, ownerId)} AND e.transaction_id < ${before ?? Number.MAX_SAFE_INTEGER}
          ORDER BY e.transaction_id DESC
          LIMIT ${limit}`
      )

    return {
      memberBalance: (userId: number) => balance("member", userId),
      memberTransactions: (userId: number, before: number | undefined, limit: number) =>
        transactions("member", userId, before, limit),
      organisationBalance: (organisationId: number) => balance("organisation", organisationId),
      organisationTransactions: (organisationId: number, before: number | undefined, limit: number) =>
        transactions("organisation", organisationId, before, limit),
      /** Wallet balances of many organisations in one query (index `ledger_accounts_owner`); absent → 0. */
      organisationBalances: (organisationIds: ReadonlyArray<number>) => {
        const unique = [...new Set(organisationIds)]
        if (unique.length === 0) return Effect.succeed(new Map<number, Cents>() as ReadonlyMap<number, Cents>)
        return db.query((tenantId) =>
          sql<{ owner_id: string; balance: string }>`
            SELECT owner_id, balance FROM ledger_accounts
            WHERE tenant_id = ${tenantId} AND kind = 'organisation' AND owner_id IN ${sql.in(unique)}`.pipe(
            Effect.map((rows): ReadonlyMap<number, Cents> =>
              new Map(rows.map((r) => [Number(r.owner_id), centsFromNumeric(r.balance)]))
            )
          )
        )
      },
      memberTransaction: (userId: number, transactionId: number) =>
        db.query((tenantId) =>
          sql<MemberTransactionRow>`${memberEntries(tenantId, userId)} AND t.id = ${transactionId}`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]))
          )
        )
    } as const
  })
}) {}
