import type { CurrentTenant, TransactionType } from "@timebank/domain"
import { Effect, Schema, type Stream } from "effect"
import type { Period } from "../platform/DaySeries.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, DbInt, DbNumeric, decodeRows } from "../platform/SqlRows.js"
import { streamRows, tenantStream } from "../platform/SqlStreams.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EXCHANGE_TYPES } from "./LedgerStats.js"

/** Exchange hours of one listing (`null`: exchanges that named none). */
export interface ListingHours {
  readonly listing_id: number | null
  readonly hours: number
}

const ListingHoursRow = Schema.Struct({ listing_id: Schema.NullOr(DbInt), hours: DbNumeric })
const IdRow = Schema.Struct({ id: DbInt })
const BalanceRow = Schema.Struct({ owner_id: DbInt, balance: DbNumeric })

const AccountKind = Schema.NullOr(Schema.Literal("member", "organisation", "treasury", "partner"))

/** One ledger transaction as the transactions export writes it; a party is its account (kind and owner). */
export const TransactionExportRow = Schema.Struct({
  id: DbInt,
  created_at: DbDate,
  type: Schema.String,
  amount: DbNumeric,
  description: Schema.String,
  from_kind: AccountKind,
  from_owner: Schema.NullOr(DbInt),
  to_kind: AccountKind,
  to_owner: Schema.NullOr(DbInt)
})
export type TransactionExportRow = typeof TransactionExportRow.Type

/** A party of a transaction as the export names it: `member:12`, `organisation:3`, `partner:2`, `treasury`. */
export const partyOf = (kind: string | null, owner: number | null): string =>
  kind === null ? "" : owner === null ? kind : `${kind}:${owner}`

/**
 * What funder reports read of the ledger (decisions D17 "Funder reports"): exchange hours per listing, who took
 * part in exchanges, members' balances and the transactions export. Exchanges are {@link EXCHANGE_TYPES} only.
 */
export class LedgerReports extends Effect.Service<LedgerReports>()("LedgerReports", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const exchangeTypes = pgArray(EXCHANGE_TYPES as ReadonlyArray<TransactionType>)

    /** Exchange hours of `period` per listing the exchange named (one grouped query). */
    const exchangeHoursByListing = (period: Period): Effect.Effect<ReadonlyArray<ListingHours>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT listing_id, sum(amount) AS hours FROM ledger_transactions
            WHERE tenant_id = ${tenantId} AND type = ANY(${exchangeTypes}::text[])
              AND created_at >= ${period.from} AND created_at < ${period.to}
            GROUP BY listing_id`.pipe(decodeRows(ListingHoursRow))
      )

    /** Members who sent or received an exchange in `period`. */
    const exchangeParticipants = (period: Period): Effect.Effect<ReadonlyArray<number>, never, CurrentTenant> =>
      db.query((tenantId) =>
        sql`SELECT DISTINCT p.id FROM ledger_transactions t
              CROSS JOIN LATERAL unnest(ARRAY[t.sender_id, t.recipient_id]) AS p(id)
            WHERE t.tenant_id = ${tenantId} AND t.type = ANY(${exchangeTypes}::text[])
              AND t.created_at >= ${period.from} AND t.created_at < ${period.to} AND p.id IS NOT NULL`.pipe(
          decodeRows(IdRow),
          Effect.map((rows) => rows.map((r) => r.id))
        )
      )

    /** Members' balances in hours, one query; a member without an account has 0. */
    const memberBalances = (
      userIds: ReadonlyArray<number>
    ): Effect.Effect<ReadonlyMap<number, number>, never, CurrentTenant> =>
      userIds.length === 0
        ? Effect.succeed(new Map())
        : db.query((tenantId) =>
          sql`SELECT owner_id, balance FROM ledger_accounts
              WHERE tenant_id = ${tenantId} AND kind = 'member'
                AND owner_id = ANY(${pgArray(userIds)}::bigint[])`.pipe(
            decodeRows(BalanceRow),
            Effect.map((rows) => new Map(rows.map((r) => [r.owner_id, r.balance])))
          )
        )

    const transactionRows = streamRows(TransactionExportRow)

    /** Every transaction of `period` (all types), oldest first, through a cursor. */
    const transactions = (period: Period): Stream.Stream<TransactionExportRow, never, CurrentTenant> =>
      tenantStream((tenantId) =>
        transactionRows(sql`
          SELECT t.id, t.created_at, t.type, t.amount, t.description,
                 p.from_kind, p.from_owner, p.to_kind, p.to_owner
          FROM ledger_transactions t
          LEFT JOIN LATERAL (
            SELECT max(a.kind) FILTER (WHERE e.amount < 0) AS from_kind,
                   max(a.owner_id) FILTER (WHERE e.amount < 0) AS from_owner,
                   max(a.kind) FILTER (WHERE e.amount > 0) AS to_kind,
                   max(a.owner_id) FILTER (WHERE e.amount > 0) AS to_owner
            FROM ledger_entries e JOIN ledger_accounts a ON a.id = e.account_id
            WHERE e.transaction_id = t.id AND e.tenant_id = ${tenantId}
          ) p ON true
          WHERE t.tenant_id = ${tenantId} AND t.created_at >= ${period.from} AND t.created_at < ${period.to}
          ORDER BY t.created_at, t.id`)
      )

    return { exchangeHoursByListing, exchangeParticipants, memberBalances, transactions } as const
  })
}) {}
