import { type Cents, centsFromNumeric, TransactionId, TransactionType } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, dbId, DbInt, DbNumeric, decodeFirst, decodeRows } from "../platform/SqlRows.js"
import { TenantSql } from "../platform/TenantSql.js"

/** A transaction as one account took part in it: `outgoing` when the account's entry is a debit. */
export const MemberTransactionRow = Schema.Struct({
  id: dbId(TransactionId),
  type: TransactionType,
  amount: DbNumeric,
  sender_id: Schema.NullOr(DbInt),
  recipient_id: Schema.NullOr(DbInt),
  description: Schema.String,
  listing_id: Schema.NullOr(DbInt),
  created_at: DbDate,
  outgoing: Schema.Boolean
})
export type MemberTransactionRow = typeof MemberTransactionRow.Type

const allTransactions = decodeRows(MemberTransactionRow)
const firstTransaction = decodeFirst(MemberTransactionRow)
const firstBalance = decodeFirst(Schema.Struct({ balance: DbNumeric }))
const firstId = decodeFirst(Schema.Struct({ id: DbInt }))
const balances = decodeRows(Schema.Struct({ owner_id: DbInt, balance: DbNumeric }))

type OwnedAccount = "member" | "organisation" | "partner"

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
        sql`
          SELECT balance FROM ledger_accounts
          WHERE tenant_id = ${tenantId} AND kind = ${kind} AND owner_id = ${ownerId}`.pipe(
          firstBalance,
          Effect.map(Option.match({ onNone: (): Cents => 0, onSome: (row) => centsFromNumeric(row.balance) }))
        )
      )

    /** Newest first, `limit` rows after the transaction id `before` (exclusive). */
    const transactions = (kind: OwnedAccount, ownerId: number, before: number | undefined, limit: number) =>
      db.query((tenantId) =>
        sql`
          ${accountEntries(tenantId, kind, ownerId)} AND e.transaction_id < ${before ?? Number.MAX_SAFE_INTEGER}
          ORDER BY e.transaction_id DESC
          LIMIT ${limit}`.pipe(allTransactions)
      )

    return {
      memberBalance: (userId: number) => balance("member", userId),
      memberTransactions: (userId: number, before: number | undefined, limit: number) =>
        transactions("member", userId, before, limit),
      organisationBalance: (organisationId: number) => balance("organisation", organisationId),
      /** A partner's clearing account (federation); 0 before its first move. */
      partnerBalance: (partnerId: number) => balance("partner", partnerId),
      organisationTransactions: (organisationId: number, before: number | undefined, limit: number) =>
        transactions("organisation", organisationId, before, limit),
      /** Wallet balances of many organisations in one query (index `ledger_accounts_owner`); absent → 0. */
      organisationBalances: (organisationIds: ReadonlyArray<number>) => {
        const unique = [...new Set(organisationIds)]
        if (unique.length === 0) return Effect.succeed(new Map<number, Cents>() as ReadonlyMap<number, Cents>)
        return db.query((tenantId) =>
          sql`
            SELECT owner_id, balance FROM ledger_accounts
            WHERE tenant_id = ${tenantId} AND kind = 'organisation' AND owner_id IN ${sql.in(unique)}`.pipe(
            balances,
            Effect.map((rows): ReadonlyMap<number, Cents> =>
              new Map(rows.map((r) => [r.owner_id, centsFromNumeric(r.balance)]))
            )
          )
        )
      },
      /** The community's transaction posted with this idempotency key, if any. */
      transactionIdByKey: (key: string) =>
        db.query((tenantId) =>
          sql`SELECT id FROM ledger_transactions WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`.pipe(
            firstId,
            Effect.map(Option.map((row) => row.id))
          )
        ),
      memberTransaction: (userId: number, transactionId: number) =>
        db.query((tenantId) =>
          sql`${memberEntries(tenantId, userId)} AND t.id = ${transactionId}`.pipe(firstTransaction)
        )
    } as const
  })
}) {}
