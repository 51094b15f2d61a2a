import { SqlClient } from "@effect/sql"
import {
  type AccountRef,
  centsFromNumeric,
  DomainEvents,
  IdempotencyConflict,
  InsufficientBalance,
  type Move,
  numericFromCents,
  type Posted
} from "@timebank/domain"
import { DateTime, Effect, Exit, Option, Schema } from "effect"
import { Outbox } from "../platform/Outbox.js"
import { pgArray } from "../platform/SqlArrays.js"
import { DbDate, DbInt, decodeRows } from "../platform/SqlRows.js"
import { dieOnSqlError } from "../platform/TenantSql.js"
import { TenantDirectory } from "../tenancy/TenantDirectory.js"
import { accountFloor, accountKey, type Decision, type EarlierOutcome, planBatch } from "./LedgerBatch.js"

export type MoveOutcome = Exit.Exit<Posted, InsufficientBalance | IdempotencyConflict>

const refOwner = (ref: AccountRef): number | null => {
  switch (ref._tag) {
    case "member":
      return ref.userId
    case "organisation":
      return ref.organisationId
    case "partner":
      return ref.partnerId
    case "treasury":
      return null
  }
}

/** A locked account; `balance` stays the numeric's text, turned into exact cents by `centsFromNumeric`. */
const AccountRow = Schema.Struct({
  id: DbInt,
  kind: Schema.Literal("member", "organisation", "treasury", "partner"),
  owner_id: Schema.NullOr(DbInt),
  balance: Schema.String
})
type AccountRow = typeof AccountRow.Type

/** A transaction already written under one of the batch's idempotency keys. */
const EarlierRow = Schema.Struct({
  id: DbInt,
  idempotency_key: Schema.String,
  request_hash: Schema.String,
  created_at: DbDate
})

/** A transaction this batch wrote. */
const WrittenRow = Schema.Struct({ id: DbInt, idempotency_key: Schema.String, created_at: DbDate })
type WrittenRow = typeof WrittenRow.Type

const rowKey = (row: AccountRow) => row.kind === "treasury" ? "treasury" : `${row.kind}:${row.owner_id}`

/**
 * The longest any one statement of a batch may run (a lock wait included) before PostgreSQL cancels it and the
 * batch fails. Milliseconds are normal; this turns a stuck statement into an error the Ledger entity recovers from,
 * below the entity's own bound on a whole batch (BATCH_TIMEOUT).
 */
const STATEMENT_TIMEOUT = "3s"

/**
 * Applies a batch of moves of one community in ONE database transaction: each move is decided on its own
 * (planBatch) and answered on its own, but the batch shares the reads, the writes and the commit.
 */
export class LedgerWriter extends Effect.Service<LedgerWriter>()("LedgerWriter", {
  dependencies: [Outbox.Default, TenantDirectory.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const outbox = yield* Outbox
    const tenants = yield* TenantDirectory

    const earlierOutcomes = (tenantId: number, keys: ReadonlyArray<string>) =>
      sql`
        SELECT id, idempotency_key, request_hash, created_at FROM ledger_transactions
        WHERE tenant_id = ${tenantId} AND idempotency_key = ANY(${pgArray(keys)}::text[])`.pipe(
        decodeRows(EarlierRow),
        Effect.map((rows) =>
          new Map(rows.map((r): [string, EarlierOutcome] => [r.idempotency_key, {
            transactionId: r.id,
            requestHash: r.request_hash,
            createdAt: r.created_at
          }]))
        )
      )

    /** Creates missing accounts, then locks and reads all accounts of the batch (in id order: no deadlocks). */
    const lockAccounts = (tenantId: number, refs: ReadonlyArray<AccountRef>) =>
      Effect.gen(function*() {
        const kinds = pgArray(refs.map((r) => r._tag))
        const owners = pgArray(refs.map(refOwner))
        yield* sql`
          INSERT INTO ledger_accounts (tenant_id, kind, owner_id)
          SELECT ${tenantId}, k, o FROM unnest(${kinds}::text[], ${owners}::bigint[]) AS t(k, o)
          ON CONFLICT DO NOTHING`
        const rows = yield* sql`
          SELECT a.id, a.kind, a.owner_id, a.balance FROM ledger_accounts a
          JOIN unnest(${kinds}::text[], ${owners}::bigint[]) AS t(k, o)
            ON a.kind = t.k AND a.owner_id IS NOT DISTINCT FROM t.o
          WHERE a.tenant_id = ${tenantId}
          ORDER BY a.id
          FOR UPDATE OF a`.pipe(decodeRows(AccountRow))
        return new Map(rows.map((row) => [rowKey(row), row]))
      })

    /** Bounds the statements of this transaction (`set_config(..., true)` is `SET LOCAL`, which takes no binds). */
    const startBatch = sql`SELECT set_config('statement_timeout', ${STATEMENT_TIMEOUT}, true)`

    /**
     * Whether the community lets members go negative, from the tenant cache (no round trip): a settings change drops
     * the tenant's entries on every runner, so it applies to the next batch, as it does to the next request.
     */
    const membersMayGoNegative = (tenantId: number) =>
      Effect.map(
        tenants.find({ _tag: "Id", id: String(tenantId) }),
        Option.match({ onNone: () => false, onSome: (tenant) => tenant.settings.allow_negative_balance })
      )

    const insertTransactions = (tenantId: number, moves: ReadonlyArray<Move>) =>
      sql`
        INSERT INTO ledger_transactions ${
        sql.insert(moves.map((m) => ({
          tenant_id: tenantId,
          type: m.type,
          description: m.description,
          amount: numericFromCents(m.cents),
          sender_id: m.senderId,
          recipient_id: m.recipientId,
          listing_id: m.listingId,
          idempotency_key: m.idempotencyKey,
          request_hash: m.requestHash,
          created_by: m.createdBy
        })))
      }
        RETURNING id, idempotency_key, created_at`.pipe(
        decodeRows(WrittenRow),
        Effect.map((rows) => new Map(rows.map((r) => [r.idempotency_key, r])))
      )

    const writeBatch = (tenantId: number, moves: ReadonlyArray<Move>) =>
      sql.withTransaction(Effect.gen(function*() {
        yield* startBatch
        const rules = { membersMayGoNegative: yield* membersMayGoNegative(tenantId) }
        const earlier = yield* earlierOutcomes(tenantId, moves.map((m) => m.idempotencyKey))
        const refs = [...new Map(moves.flatMap((m) => [m.from, m.to]).map((r) => [accountKey(r), r])).values()]
        const accounts = yield* lockAccounts(tenantId, refs)
        const plan = planBatch({
          moves,
          earlier,
          balances: new Map([...accounts].map(([key, row]) => [key, centsFromNumeric(row.balance)])),
          floor: (ref) => accountFloor(ref, rules)
        })
        const applied = moves.filter((_, i) => plan.decisions[i]!._tag === "Apply")
        const written = applied.length > 0
          ? yield* insertTransactions(tenantId, applied)
          : new Map<string, WrittenRow>()
        if (applied.length > 0) {
          const accountId = (ref: AccountRef) => accounts.get(accountKey(ref))!.id
          const entries = applied.flatMap((m) => {
            const txId = written.get(m.idempotencyKey)!.id
            const amount = numericFromCents(m.cents)
            return [
              { tenant_id: tenantId, transaction_id: txId, account_id: accountId(m.from), amount: `-${amount}` },
              { tenant_id: tenantId, transaction_id: txId, account_id: accountId(m.to), amount }
            ]
          })
          yield* sql`INSERT INTO ledger_entries ${sql.insert(entries)}`
          const changed = [...plan.deltas].filter(([, cents]) => cents !== 0)
          yield* sql`
            UPDATE ledger_accounts SET balance = balance + d.delta
            FROM unnest(${pgArray(changed.map(([key]) => accounts.get(key)!.id))}::bigint[],
                        ${pgArray(changed.map(([, cents]) => numericFromCents(cents)))}::numeric[]) AS d(id, delta)
            WHERE ledger_accounts.id = d.id`
          yield* outbox.appendAllFor(
            tenantId,
            applied.map((m) => completedEvent(m, written.get(m.idempotencyKey)!.id))
          )
        }
        return plan.decisions.map((decision, i) => outcome(decision, moves, written, i))
      })).pipe(
        dieOnSqlError,
        Effect.withSpan("LedgerWriter.writeBatch", { attributes: { size: moves.length }, captureStackTrace: false })
      )

    return { writeBatch } as const
  })
}) {}

// Built from a decoded Move and a decoded id; the outbox encodes it through its schema anyway (no second check).
const completedEvent = (m: Move, transactionId: number) =>
  new DomainEvents.TransactionCompleted({
    transaction_id: transactionId,
    type: m.type,
    amount: m.cents / 100,
    sender_id: m.senderId,
    recipient_id: m.recipientId,
    listing_id: m.listingId,
    description: m.description,
    ...(m.senderName === undefined ? {} : { sender_name: m.senderName })
  }, true)

const posted = (transactionId: number, createdAt: Date, replayed: boolean): Posted => ({
  transactionId,
  replayed,
  createdAt: DateTime.unsafeFromDate(createdAt)
})

const outcome = (
  decision: Decision,
  moves: ReadonlyArray<Move>,
  written: ReadonlyMap<string, WrittenRow>,
  index: number
): MoveOutcome => {
  switch (decision._tag) {
    case "Apply": {
      const row = written.get(moves[index]!.idempotencyKey)!
      return Exit.succeed(posted(row.id, row.created_at, false))
    }
    case "SameAs": {
      const row = written.get(moves[decision.index]!.idempotencyKey)!
      return Exit.succeed(posted(row.id, row.created_at, true))
    }
    case "Replay":
      return Exit.succeed(posted(decision.earlier.transactionId, decision.earlier.createdAt, true))
    case "Conflict":
      return Exit.fail(
        new IdempotencyConflict({ message: "This Idempotency-Key was used with a different request" })
      )
    case "Insufficient":
      return Exit.fail(new InsufficientBalance({ message: "The balance does not cover this amount", field: "amount" }))
  }
}
