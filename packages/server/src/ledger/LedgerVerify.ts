import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { DbInt, decodeRows, decodeSingle } from "../platform/SqlRows.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"

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

const counts = decodeSingle(Schema.Struct({ tenants: DbInt, transactions: DbInt, accounts: DbInt }))
/** Sums stay text: the report shows them exactly as PostgreSQL computed them. */
const unbalancedRows = decodeRows(
  Schema.Struct({
    transactionId: Schema.propertySignature(DbInt).pipe(Schema.fromKey("transaction_id")),
    sum: Schema.String,
    entries: DbInt
  })
)
const mismatchRows = decodeRows(
  Schema.Struct({
    accountId: Schema.propertySignature(DbInt).pipe(Schema.fromKey("account_id")),
    balance: Schema.String,
    entries: Schema.String
  })
)
const negativeRows = decodeRows(
  Schema.Struct({
    accountId: Schema.propertySignature(DbInt).pipe(Schema.fromKey("account_id")),
    balance: Schema.String,
    kind: Schema.String,
    tenantId: Schema.propertySignature(DbInt).pipe(Schema.fromKey("tenant_id"))
  })
)

/**
 * Checks the ledger's invariants from the stored entries, for one tenant or all: Σ entries per transaction = 0,
 * Σ entries per account = cached balance, no forbidden negative balance. Any operator can run it (CLI).
 */
export class LedgerVerify extends Effect.Service<LedgerVerify>()("LedgerVerify", {
  dependencies: [TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const tenants = yield* TenantDirectory

    /** Tenants (of those given) whose settings allow members below zero; read from tenancy, once each. */
    const allowingNegative = (tenantIds: ReadonlyArray<number>) =>
      Effect.map(
        Effect.forEach(new Set(tenantIds), (id) => tenants.findById(id), { concurrency: 4 }),
        (found) =>
          new Set<number>(
            found.flatMap((t) => (Option.isSome(t) && t.value.settings.allow_negative_balance ? [t.value.id] : []))
          )
      )

    const verify = (tenantId: number | null) =>
      Effect.gen(function*() {
        const scope = tenantId === null ? sql`true` : sql`tenant_id = ${tenantId}`
        const totals = yield* sql`
          SELECT (SELECT count(DISTINCT tenant_id)::int FROM ledger_accounts WHERE ${scope}) AS tenants,
                 (SELECT count(*)::int FROM ledger_transactions WHERE ${scope}) AS transactions,
                 (SELECT count(*)::int FROM ledger_accounts WHERE ${scope}) AS accounts`.pipe(counts)
        const unbalanced = yield* sql`
          SELECT t.id AS transaction_id, coalesce(sum(e.amount), 0)::text AS sum, count(e.id)::int AS entries
          FROM ledger_transactions t LEFT JOIN ledger_entries e ON e.transaction_id = t.id
          WHERE ${tenantId === null ? sql`true` : sql`t.tenant_id = ${tenantId}`}
          GROUP BY t.id
          HAVING coalesce(sum(e.amount), 0) <> 0 OR count(e.id) < 2`.pipe(unbalancedRows)
        const mismatches = yield* sql`
          SELECT a.id AS account_id, a.balance::text AS balance, coalesce(sum(e.amount), 0)::text AS entries
          FROM ledger_accounts a LEFT JOIN ledger_entries e ON e.account_id = a.id
          WHERE ${tenantId === null ? sql`true` : sql`a.tenant_id = ${tenantId}`}
          GROUP BY a.id
          HAVING a.balance <> coalesce(sum(e.amount), 0)`.pipe(mismatchRows)
        const below = yield* sql`
          SELECT a.id AS account_id, a.balance::text AS balance, a.kind, a.tenant_id
          FROM ledger_accounts a
          WHERE ${tenantId === null ? sql`true` : sql`a.tenant_id = ${tenantId}`} AND a.balance < 0
            AND a.kind IN ('organisation', 'member')`.pipe(negativeRows)
        const allowed = yield* allowingNegative(below.filter((a) => a.kind === "member").map((a) => a.tenantId))
        const negative = below
          .filter((a) => a.kind === "organisation" || !allowed.has(a.tenantId))
          .map(({ accountId, balance }) => ({ accountId, balance }))
        const report: LedgerReport = {
          ...totals,
          unbalancedTransactions: unbalanced,
          balanceMismatches: mismatches,
          negativeBalances: negative,
          ok: unbalanced.length === 0 && mismatches.length === 0 && negative.length === 0
        }
        return report
      }).pipe(dieOnSqlError, Effect.withSpan("LedgerVerify.verify"))

    return { verify } as const
  })
}) {}
