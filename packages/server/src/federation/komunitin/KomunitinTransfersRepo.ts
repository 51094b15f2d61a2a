import { KomunitinTransferMeta, KomunitinTransferState } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A row of `federation_jsonapi_transfers`: a transfer a Komunitin partner sent, named by its UUID. */
export const KomunitinTransferRow = Schema.Struct({
  id: Schema.String,
  partner_id: DbInt,
  state: KomunitinTransferState,
  amount: DbInt,
  meta: KomunitinTransferMeta,
  payer_account_id: Schema.String,
  payer_href: Schema.NullOr(Schema.String),
  payee_user_id: DbInt,
  payee_account_id: Schema.String,
  request_hash: Schema.String,
  transaction_id: Schema.NullOr(DbInt),
  created_at: DbDate,
  updated_at: DbDate
})
export type KomunitinTransferRow = typeof KomunitinTransferRow.Type

const COLUMNS = "id::text AS id, partner_id, state, amount, meta, payer_account_id::text AS payer_account_id, " +
  "payer_href, payee_user_id, payee_account_id::text AS payee_account_id, request_hash, transaction_id, created_at, " +
  "updated_at"

const first = decodeFirst(KomunitinTransferRow)
const all = decodeRows(KomunitinTransferRow)

export interface NewKomunitinTransfer {
  readonly id: string
  readonly partnerId: number
  readonly state: "new" | "submitted"
  readonly amount: number
  readonly meta: KomunitinTransferMeta
  readonly payerAccountId: string
  readonly payerHref: string | null
  readonly payeeUserId: number
  readonly payeeAccountId: string
  readonly requestHash: string
}

/**
 * Komunitin transfers partners sent to the current community. Each state change is one conditional UPDATE, so
 * concurrent requests of one transfer settle on one outcome; the ledger's idempotency key covers the money.
 */
export class KomunitinTransfersRepo extends Effect.Service<KomunitinTransfersRepo>()("KomunitinTransfersRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    /** Moves the transfer from one of `from` to `to` (and sets the ledger transaction), if it is in one of them. */
    const move = (
      id: string,
      from: ReadonlyArray<KomunitinTransferState>,
      to: KomunitinTransferState,
      transactionId?: number
    ) =>
      db.query((tenantId) =>
        sql`
          UPDATE federation_jsonapi_transfers
          SET state = ${to}, updated_at = now()
            ${transactionId === undefined ? sql`` : sql`, transaction_id = ${transactionId}`}
          WHERE tenant_id = ${tenantId} AND id = ${id}::uuid AND state IN ${sql.in(from)}
          RETURNING ${columns}`.pipe(first)
      )

    return {
      /** The transfer with this id in the community, whichever partner sent it. */
      find: (id: string) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_jsonapi_transfers
              WHERE tenant_id = ${tenantId} AND id = ${id}::uuid`.pipe(first)
        ),

      /** The transfer if `partnerId` sent it (another partner's is none). */
      findOwn: (partnerId: number, id: string) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_jsonapi_transfers
              WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND id = ${id}::uuid`.pipe(first)
        ),

      /** Records a new transfer; none when its id is already taken (a repeat, or a concurrent twin that won). */
      insert: (t: NewKomunitinTransfer) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_jsonapi_transfers
              (tenant_id, id, partner_id, state, amount, meta, payer_account_id, payer_href, payee_user_id,
               payee_account_id, request_hash)
            VALUES (
              ${tenantId}, ${t.id}::uuid, ${t.partnerId}, ${t.state}, ${t.amount}, ${JSON.stringify(t.meta)}::jsonb,
              ${t.payerAccountId}::uuid, ${t.payerHref}, ${t.payeeUserId}, ${t.payeeAccountId}::uuid, ${t.requestHash}
            )
            ON CONFLICT (tenant_id, id) DO NOTHING
            RETURNING ${columns}`.pipe(first)
        ),

      /** `new` (or an unfinished `submitted`) → `submitted`: the ledger is about to credit it. */
      claim: (id: string) => move(id, ["new", "submitted"], "submitted"),
      /** `submitted` → `committed`, with the ledger transaction that credited it. */
      finish: (id: string, transactionId: number) => move(id, ["submitted"], "committed", transactionId),
      /** `submitted` → `new`: the ledger refused the credit (a PATCH that can be tried again). */
      release: (id: string) => move(id, ["submitted"], "new"),
      /** `new` → `deleted`. */
      markDeleted: (id: string) => move(id, ["new"], "deleted"),

      /** Forgets a transfer created committed whose credit the ledger refused: Komunitin creates nothing then. */
      forget: (id: string) =>
        db.query((tenantId) =>
          sql`DELETE FROM federation_jsonapi_transfers
              WHERE tenant_id = ${tenantId} AND id = ${id}::uuid AND state = 'submitted'
                AND transaction_id IS NULL`
        ).pipe(Effect.asVoid),

      /** A page of the partner's transfers by creation (index `federation_jsonapi_transfers_partner`). */
      page: (partnerId: number, q: { readonly offset: number; readonly size: number; readonly newestFirst: boolean }) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_jsonapi_transfers
              WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId}
              ORDER BY ${q.newestFirst ? sql`created_at DESC, id DESC` : sql`created_at ASC, id ASC`}
              LIMIT ${q.size} OFFSET ${q.offset}`.pipe(all)
        )
    } as const
  })
}) {}

/** The row, or a defect when it vanished (rows are never deleted once credited). */
export const present = (row: Option.Option<KomunitinTransferRow>) =>
  Option.match(row, {
    onNone: () => Effect.dieMessage("Komunitin transfer missing after its change"),
    onSome: Effect.succeed
  })
