import { Effect, Schema } from "effect"
import { DbInt, decodeFirst, decodeRows } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

const ChainRow = Schema.Struct({ seed_digest: Schema.String, last_hash: Schema.String })
export type ChainRow = typeof ChainRow.Type

const RelayRow = Schema.Struct({
  direction: Schema.Literal("in", "out"),
  hash_before: Schema.String,
  hash_after: Schema.String,
  body: Schema.Unknown
})
export type RelayRow = typeof RelayRow.Type

const AccountRelayRow = Schema.Struct({ net_cents: DbInt, body: Schema.Unknown })
export type AccountRelayRow = typeof AccountRelayRow.Type

const PartnerRow = Schema.Struct({
  id: DbInt,
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown })
})

/** A relay that advanced a chain, as it is recorded. */
export interface RelayInsert {
  readonly partnerId: number
  readonly uuid: string
  readonly direction: "in" | "out"
  readonly hashBefore: string
  readonly hashAfter: string
  readonly body: unknown
  readonly localUserId: number | null
  /** What our member gained (in) or gave (out, negative), in cents. */
  readonly netCents: number
  readonly transactionId: number | null
}

/** The Credit Commons hash chains of the current tenant's partners and the relays that advanced them. */
export class CreditCommonsRepo extends Effect.Service<CreditCommonsRepo>()("CreditCommonsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /** The active `credit_commons` partners, with their settings (to match `cc-node`). */
      activePartners: db.query((tenantId) =>
        sql`
          SELECT id, settings FROM federation_partners
          WHERE tenant_id = ${tenantId} AND protocol_type = 'credit_commons' AND status = 'active'
            AND deleted_at IS NULL
          ORDER BY id`.pipe(decodeRows(PartnerRow))
      ),

      /** Makes the chain at its seed unless it exists. */
      ensureChain: (partnerId: number, seedDigest: string, seed: string) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_cc_chains (partner_id, tenant_id, seed_digest, last_hash)
            VALUES (${partnerId}, ${tenantId}, ${seedDigest}, ${seed})
            ON CONFLICT (partner_id) DO NOTHING`
        ),

      /** The chain, locked until the surrounding transaction ends. */
      lockChain: (partnerId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT seed_digest, last_hash FROM federation_cc_chains
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId}
            FOR UPDATE`.pipe(decodeFirst(ChainRow))
        ),

      readChain: (partnerId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT seed_digest, last_hash FROM federation_cc_chains
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId}`.pipe(decodeFirst(ChainRow))
        ),

      /** Sets the chain's hash (and the seed it now descends from). */
      setChain: (partnerId: number, seedDigest: string, lastHash: string) =>
        db.query((tenantId) =>
          sql`
            UPDATE federation_cc_chains
            SET seed_digest = ${seedDigest}, last_hash = ${lastHash}, updated_at = now()
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId}`
        ),

      relayOf: (partnerId: number, uuid: string) =>
        db.query((tenantId) =>
          sql`
            SELECT direction, hash_before, hash_after, body FROM federation_cc_relays
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND uuid = ${uuid}::uuid`.pipe(
            decodeFirst(RelayRow)
          )
        ),

      insertRelay: (relay: RelayInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_cc_relays ${
            sql.insert({
              tenant_id: tenantId,
              partner_id: relay.partnerId,
              uuid: relay.uuid,
              direction: relay.direction,
              hash_before: relay.hashBefore,
              hash_after: relay.hashAfter,
              body: JSON.stringify(relay.body),
              local_user_id: relay.localUserId,
              net_cents: relay.netCents,
              transaction_id: relay.transactionId
            })
          }`
        ),

      /** A member's relays with one partner, both ways (index `federation_cc_relays_account`). */
      accountRelays: (partnerId: number, userId: number) =>
        db.query((tenantId) =>
          sql`
            SELECT net_cents, body FROM federation_cc_relays
            WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND local_user_id = ${userId}`.pipe(
            decodeRows(AccountRelayRow)
          )
        )
    } as const
  })
}) {}
