import { SqlClient } from "@effect/sql"
import type { Fragment } from "@effect/sql/Statement"
import { FederationPartnerId, PartnerProtocol, PartnerStatus } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { dieOnSqlError, TenantSql } from "../../platform/TenantSql.js"

/** A row of `federation_partners`; `credentials` is the sealed box (never leaves the server unopened or opened). */
export const PartnerRow = Schema.Struct({
  id: dbId(FederationPartnerId),
  tenant_id: DbInt,
  name: Schema.String,
  protocol_type: PartnerProtocol,
  base_url: Schema.String,
  webhook_url: Schema.NullOr(Schema.String),
  credentials: Schema.NullOr(Schema.String),
  credential_keys: Schema.Array(Schema.String),
  settings: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  status: PartnerStatus,
  created_at: DbDate,
  updated_at: DbDate
})
export type PartnerRow = typeof PartnerRow.Type

const COLUMNS = "id, tenant_id, name, protocol_type, base_url, webhook_url, credentials, credential_keys, settings, " +
  "status, created_at, updated_at"

const rows = decodeRows(PartnerRow)
const first = decodeFirst(PartnerRow)
const single = decodeSingle(PartnerRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

export interface PartnerInsert {
  readonly name: string
  readonly protocolType: PartnerProtocol
  readonly baseUrl: string
  readonly webhookUrl: string | null
  /** The sealed credentials, null when none are set. */
  readonly credentials: string | null
  readonly credentialKeys: ReadonlyArray<string>
  readonly settings: Readonly<Record<string, unknown>>
}

/** Columns an update may set; `undefined` leaves a column as it is. */
export interface PartnerPatch {
  readonly name?: string | undefined
  readonly protocolType?: PartnerProtocol | undefined
  readonly baseUrl?: string | undefined
  readonly webhookUrl?: string | null | undefined
  readonly credentials?: { readonly sealed: string | null; readonly keys: ReadonlyArray<string> } | undefined
  readonly settings?: Readonly<Record<string, unknown>> | undefined
}

/** What a conditional status change found: the changed row, a partner in another status, or no partner. */
export type StatusChange =
  | { readonly _tag: "Changed"; readonly row: PartnerRow }
  | { readonly _tag: "WrongState"; readonly status: PartnerStatus }
  | { readonly _tag: "NotFound" }

/** Federation partners of the current tenant (deleted ones are invisible), and the keys bound to them. */
export class PartnerRepo extends Effect.Service<PartnerRepo>()("PartnerRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)

    const live = (tenantId: number, id: number): Fragment =>
      sql`tenant_id = ${tenantId} AND id = ${id} AND deleted_at IS NULL`

    const find = (id: number) =>
      db.query((tenantId) => sql`SELECT ${columns} FROM federation_partners WHERE ${live(tenantId, id)}`.pipe(first))

    /** Moves a partner from one of `from` to `to`, or says why not. */
    const changeStatus = (id: number, from: ReadonlyArray<PartnerStatus>, to: PartnerStatus) =>
      db.query((tenantId) =>
        sql`
          UPDATE federation_partners SET status = ${to}, updated_at = now()
          WHERE ${live(tenantId, id)} AND status IN ${sql.in(from)}
          RETURNING ${columns}`.pipe(first)
      ).pipe(
        Effect.flatMap(Option.match({
          onSome: (row): Effect.Effect<StatusChange> => Effect.succeed({ _tag: "Changed", row }),
          onNone: () =>
            Effect.map(
              find(id),
              Option.match({
                onNone: (): StatusChange => ({ _tag: "NotFound" }),
                onSome: (row): StatusChange => ({ _tag: "WrongState", status: row.status })
              })
            )
        }))
      )

    return {
      find,

      /** The partner with `id` whatever its tenant (workers without a request); deleted ones are invisible. */
      findAnyTenant: (id: number) =>
        sql`SELECT ${columns} FROM federation_partners WHERE id = ${id} AND deleted_at IS NULL`.pipe(
          first,
          dieOnSqlError
        ),

      list: (q: { readonly status: PartnerStatus | undefined; readonly page: number; readonly perPage: number }) =>
        db.query((tenantId) => {
          const where = q.status === undefined
            ? sql`tenant_id = ${tenantId} AND deleted_at IS NULL`
            : sql`tenant_id = ${tenantId} AND deleted_at IS NULL AND status = ${q.status}`
          return Effect.all({
            rows: sql`
              SELECT ${columns} FROM federation_partners WHERE ${where}
              ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(rows),
            total: sql`SELECT count(*)::int AS n FROM federation_partners WHERE ${where}`.pipe(
              count,
              Effect.map((r) => r.n)
            )
          }, { concurrency: 2 })
        }),

      insert: (input: PartnerInsert) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_partners
              (tenant_id, name, protocol_type, base_url, webhook_url, credentials, credential_keys, settings)
            VALUES (
              ${tenantId}, ${input.name}, ${input.protocolType}, ${input.baseUrl}, ${input.webhookUrl},
              ${input.credentials}, ${pgArray(input.credentialKeys)}::text[], ${JSON.stringify(input.settings)}::jsonb
            )
            RETURNING ${columns}`.pipe(single)
        ),

      update: (id: number, patch: PartnerPatch) =>
        db.query((tenantId) => {
          const sets: Array<Fragment> = [sql`updated_at = now()`]
          if (patch.name !== undefined) sets.push(sql`name = ${patch.name}`)
          if (patch.protocolType !== undefined) sets.push(sql`protocol_type = ${patch.protocolType}`)
          if (patch.baseUrl !== undefined) sets.push(sql`base_url = ${patch.baseUrl}`)
          if (patch.webhookUrl !== undefined) sets.push(sql`webhook_url = ${patch.webhookUrl}`)
          if (patch.credentials !== undefined) {
            sets.push(sql`credentials = ${patch.credentials.sealed}`)
            sets.push(sql`credential_keys = ${pgArray(patch.credentials.keys)}::text[]`)
          }
          if (patch.settings !== undefined) sets.push(sql`settings = ${JSON.stringify(patch.settings)}::jsonb`)
          return sql`
            UPDATE federation_partners SET ${sql.csv(sets)}
            WHERE ${live(tenantId, id)}
            RETURNING ${columns}`.pipe(first)
        }),

      suspend: (id: number) => changeStatus(id, ["active", "failed"], "suspended"),
      reactivate: (id: number) => changeStatus(id, ["suspended"], "active"),

      /**
       * A successful test call: a `pending` or `failed` partner becomes `active`. Leaving `failed` also closes the
       * breaker (the partner answered just now); other statuses stay as they are.
       */
      activateAfterTest: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE federation_partners
            SET status = 'active', consecutive_failures = 0, breaker_open_until = NULL, updated_at = now()
            WHERE ${live(tenantId, id)} AND status IN ('pending', 'failed')
            RETURNING ${columns}`.pipe(first)
        ),

      /**
       * Soft-deletes the partner and revokes the API keys bound to it, in one transaction: from then on those
       * keys are refused as revoked (401 `INVALID_API_KEY`), whatever the access middleware makes of the
       * partner. Whether anything was deleted.
       */
      softDelete: (id: number) =>
        db.transaction(Effect.gen(function*() {
          const tenantId = yield* db.tenantId
          const deleted = yield* sql`
            UPDATE federation_partners SET deleted_at = now(), updated_at = now()
            WHERE ${live(tenantId, id)}
            RETURNING id`
          if (deleted.length === 0) return false
          yield* sql`
            UPDATE federation_api_keys SET status = 'revoked', revoked_at = now()
            WHERE tenant_id = ${tenantId} AND partner_id = ${id} AND status = 'active'`
          return true
        })),

      /** Inbound federated transactions of the partner. */
      transactionCount: (id: number) =>
        db.query((tenantId) =>
          sql`
            SELECT count(*)::int AS n FROM federation_transactions
            WHERE tenant_id = ${tenantId} AND partner_id = ${id}`.pipe(count, Effect.map((r) => r.n))
        )
    } as const
  })
}) {}
