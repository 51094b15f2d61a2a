import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { dieOnSqlError } from "../platform/TenantSql.js"

export interface LedgerReport {
  readonly tenants: number
  readonly transactions: number
  readonly accounts: number
  /** Transactions whose entries do not sum to zero, or that have fewer than two entries. */
  readonly unbalancedTransactions: ReadonlyArray<
    { readonly transactionId: number; readonly sum: string; readonly entries: number }
  >
  /** Accounts whose cached balance differs from the sum of their entries. */
  readonly balanceMismatches: ReadonlyArray<
    { readonly accountId: number; readonly balance: string; readonly entries: string }
  >
  /** Accounts below zero that may not be (organisations; members where the community forbids it). */
  readonly negativeBalances: ReadonlyArray<{ readonly accountId: number; readonly balance: string }>
  readonly ok: boolean
}

/**
 * Checks the ledger's invariants from the stored entries, for one tenant or all: Σ entries per transaction = 0,
 * Σ entries per account = cached balance, no forbidden negative balance. Any operator can run it (CLI).
 */
export class LedgerVerify extends Effect.Service<LedgerVerify>()("LedgerVerify", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const verify = (tenantId: number | null) =>
      Effect.gen(function*() {
        const scope = tenantId === null ? sql`true` : sql`tenant_id = ${tenantId}`
        const [counts] = yield* sql<{ tenants: number; transactions: number; accounts: number }>`
          SELECT (SELECT count(DISTINCT tenant_id)::int FROM ledger_accounts WHERE ${scope}) AS tenants,
                 (SELECT count(*)::int FROM ledger_transactions WHERE ${scope}) AS transactions,
                 (SELECT count(*)::int FROM ledger_accounts WHERE ${scope}) AS accounts`
        const unbalanced = yield* sql<{ transaction_id: string; sum: string; entries: number }>`
          SELECT t.id AS transaction_id, coalesce(sum(e.amount), 0)::text AS sum, count(e.id)::int AS entries
          FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
          WHERE ${tenantId === null ? sql`true` : sql`t.tenant_id = ${tenantId}`}
          GROUP BY t.id
          HAVING coalesce(sum(e.amount), 0) <> 0 OR count(e.id) < 2`
        const mismatches = yield* sql<{ account_id: string; balance: string; entries: string }>`
          SELECT a.id AS account_id, a.balance::text AS balance, coalesce(sum(e.amount), 0)::text AS entries
          FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
          WHERE ${tenantId === null ? sql`true` : sql`a.tenant_id = ${tenantId}`}
          GROUP BY a.id
          HAVING a.balance <> coalesce(sum(e.amount), 0)`
        const negative = yield* sql<{ account_id: string; balance: string }>`
          SELECT a.id AS account_id, a.balance::text AS balance
          FROM ledger_accounts a JOIN tenants t ON t.id = a.tenant_id
          WHERE ${tenantId === null ? sql`true` : sql`a.tenant_id = ${tenantId}`} AND a.balance < 0
            AND (a.kind = 'organisation'
              OR (a.kind = 'member' AND NOT coalesce((t.settings->>'allow_negative_balance')::boolean, false)))`
        const report: LedgerReport = {
          tenants: counts!.tenants,
          transactions: counts!.transactions,
          accounts: counts!.accounts,
          unbalancedTransactions: unbalanced.map((r) => ({
            transactionId: Number(r.transaction_id),
            sum: r.sum,
            entries: r.entries
          })),
          balanceMismatches: mismatches.map((r) => ({
            accountId: Number(r.account_id),
            balance: r.balance,
            entries: r.entries
          })),
          negativeBalances: negative.map((r) => ({ accountId: Number(r.account_id), balance: r.balance })),
          ok: unbalanced.length === 0 && mismatches.length === 0 && negative.length === 0
        }
        return report
      }).pipe(dieOnSqlError, Effect.withSpan("LedgerVerify.verify"))

    return { verify } as const
  })
}) {}
