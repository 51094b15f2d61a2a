import { type FederatedRecordKind, WEBHOOK_DATA_MAX_BYTES } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { DbDate, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A stored record with its partner, as members browse it. */
export const BrowsedRecordRow = Schema.Struct({
  id: DbInt,
  partner_id: DbInt,
  partner_name: Schema.String,
  remote_id: Schema.String,
  remote_member_id: Schema.NullOr(Schema.String),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  received_at: DbDate,
  updated_at: DbDate
})
export type BrowsedRecordRow = typeof BrowsedRecordRow.Type

/** The most a stored record may grow to by merged updates. */
const MERGED_MAX_BYTES = WEBHOOK_DATA_MAX_BYTES

const UpsertedRow = Schema.Struct({ id: DbInt, created: Schema.Boolean })
const upserted = decodeFirst(UpsertedRow)
const browsed = decodeRows(BrowsedRecordRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

export interface RecordUpsert {
  readonly partnerId: number
  readonly kind: FederatedRecordKind
  readonly remoteId: string
  readonly remoteMemberId: string | null
  readonly data: Readonly<Record<string, unknown>>
  readonly occurredAt: Date | null
}

export interface BrowseQuery {
  readonly kind: FederatedRecordKind
  /** Only records older than this id (the cursor). */
  readonly before?: number | undefined
  readonly limit: number
}

/** What partners shared with the current tenant (`federated_records`), keyed by partner, kind and remote id. */
export class FederatedRecordsRepo extends Effect.Service<FederatedRecordsRepo>()("FederatedRecordsRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db

    return {
      /**
       * Stores a record, or updates the stored one with the keys sent. An update that happened before the one stored (both with an
       * `occurred_at`) changes nothing and answers none: a late retry never brings old data back.
       */
      upsert: (r: RecordUpsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federated_records ${
            sql.insert({
              tenant_id: tenantId,
              partner_id: r.partnerId,
              kind: r.kind,
              remote_id: r.remoteId,
              remote_member_id: r.remoteMemberId,
              data: JSON.stringify(r.data),
              occurred_at: r.occurredAt
            })
          }
            ON CONFLICT (partner_id, kind, remote_id) DO UPDATE SET
              remote_member_id = coalesce(EXCLUDED.remote_member_id, federated_records.remote_member_id),
              -- An update may carry only what changed: its keys replace the stored ones. A merge past the size cap
              -- keeps only what was sent (itself within the cap).
              data = CASE WHEN octet_length((federated_records.data || EXCLUDED.data)::text) <= ${MERGED_MAX_BYTES}
                          THEN federated_records.data || EXCLUDED.data ELSE EXCLUDED.data END,
              occurred_at = coalesce(EXCLUDED.occurred_at, federated_records.occurred_at),
              updated_at = now()
            WHERE federated_records.occurred_at IS NULL OR EXCLUDED.occurred_at IS NULL
               OR EXCLUDED.occurred_at >= federated_records.occurred_at
            RETURNING id, (xmax = 0) AS created`.pipe(upserted)
        ),

      /** Removes one record of a partner; answers how many went (0 or 1). */
      remove: (partnerId: number, kind: FederatedRecordKind, remoteId: string) =>
        db.query((tenantId) =>
          sql`
            WITH gone AS (
              DELETE FROM federated_records
              WHERE tenant_id = ${tenantId} AND partner_id = ${partnerId} AND kind = ${kind} AND remote_id = ${remoteId}
              RETURNING 1
            )
            SELECT count(*) AS n FROM gone`.pipe(count, Effect.map((row) => row.n))
        ),

      /**
       * Removes every record of one of the partner's members (index `federated_records_member`), and the reviews
       * written about them (`data.member_id`).
       */
      removeMember: (partnerId: number, remoteMemberId: string) =>
        db.query((tenantId) =>
          sql`
            WITH gone AS (
              DELETE FROM federated_records
              WHERE partner_id = ${partnerId} AND tenant_id = ${tenantId}
                AND (remote_member_id = ${remoteMemberId}
                     OR (kind = 'review' AND data->>'member_id' = ${remoteMemberId}))
              RETURNING 1
            )
            SELECT count(*) AS n FROM gone`.pipe(count, Effect.map((row) => row.n))
        ),

      /**
       * A page of one kind, newest first, of active partners only: ONE query (index range on
       * `federated_records_browse`, each partner by primary key).
       */
      browse: (q: BrowseQuery) =>
        db.query((tenantId) =>
          sql`
            SELECT r.id, r.partner_id, p.name AS partner_name, r.remote_id, r.remote_member_id, r.data,
                   r.received_at, r.updated_at
            FROM federated_records r
            JOIN federation_partners p ON p.id = r.partner_id
            WHERE r.tenant_id = ${tenantId} AND r.kind = ${q.kind}
              AND p.tenant_id = ${tenantId} AND p.status = 'active' AND p.deleted_at IS NULL
              ${q.before === undefined ? sql`` : sql`AND r.id < ${q.before}`}
            ORDER BY r.id DESC
            LIMIT ${q.limit}`.pipe(browsed)
        )
    } as const
  })
}) {}
