import { ApiKeyId, ApiKeyStatus, FederationScope } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { pgArray } from "../../platform/SqlArrays.js"
import { isUniqueViolation } from "../../platform/SqlErrors.js"
import { DbDate, dbId, DbInt, decodeFirst, decodeRows, decodeSingle } from "../../platform/SqlRows.js"
import { TenantSql } from "../../platform/TenantSql.js"

/** A `federation_api_keys` row as admins see it: `signing` says whether a sealed secret is stored, never which. */
export const ApiKeyRow = Schema.Struct({
  id: dbId(ApiKeyId),
  name: Schema.String,
  key_prefix: Schema.String,
  scopes: Schema.Array(FederationScope),
  rate_limit_per_minute: DbInt,
  signing: Schema.Boolean,
  status: ApiKeyStatus,
  partner_id: Schema.NullOr(DbInt),
  expires_at: Schema.NullOr(DbDate),
  last_used_at: Schema.NullOr(DbDate),
  revoked_at: Schema.NullOr(DbDate),
  created_at: DbDate
})
export type ApiKeyRow = typeof ApiKeyRow.Type

/** A key to store: its SHA-256 and prefix, never the key itself; the signing secret already sealed. */
export interface NewApiKey {
  readonly name: string
  readonly keyPrefix: string
  readonly keyHash: string
  readonly scopes: ReadonlyArray<FederationScope>
  readonly rateLimitPerMinute: number
  readonly sealedSigningSecret: string | null
  readonly partnerId: number | null
  readonly expiresAt: Date | null
  readonly createdBy: number | null
}

export interface ApiKeyListQuery {
  readonly page: number
  readonly perPage: number
  readonly status?: ApiKeyStatus | undefined
}

const COLUMNS = "id, name, key_prefix, scopes, rate_limit_per_minute, signing_secret IS NOT NULL AS signing, status, " +
  "partner_id, expires_at, last_used_at, revoked_at, created_at"

const firstKey = decodeFirst(ApiKeyRow)
const allKeys = decodeRows(ApiKeyRow)
const count = decodeSingle(Schema.Struct({ n: DbInt }))

/** The inbound API keys of the current tenant, as its admins manage them (authentication reads `ApiKeyStore`). */
export class ApiKeyRepo extends Effect.Service<ApiKeyRepo>()("FederationApiKeyRepo", {
  dependencies: [TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const columns = sql.literal(COLUMNS)

    return {
      /** The stored key, or none when its prefix or hash is taken already (the caller draws a new key). */
      insert: (key: NewApiKey) =>
        db.query((tenantId) =>
          sql`
            INSERT INTO federation_api_keys (tenant_id, partner_id, name, key_prefix, key_hash, scopes,
              rate_limit_per_minute, signing_secret, expires_at, created_by)
            VALUES (${tenantId}, ${key.partnerId}, ${key.name}, ${key.keyPrefix}, ${key.keyHash},
              ${pgArray(key.scopes)}::text[], ${key.rateLimitPerMinute}, ${key.sealedSigningSecret},
              ${key.expiresAt}, ${key.createdBy})
            RETURNING ${columns}`.pipe(
            firstKey,
            Effect.catchIf(isUniqueViolation, () => Effect.succeedNone)
          )
        ),

      /** Newest first (index `federation_api_keys_tenant`). */
      page: (q: ApiKeyListQuery) =>
        db.query((tenantId) => {
          const where = sql.and([
            sql`tenant_id = ${tenantId}`,
            ...(q.status === undefined ? [] : [sql`status = ${q.status}`])
          ])
          return Effect.all({
            rows: sql`SELECT ${columns} FROM federation_api_keys WHERE ${where}
              ORDER BY id DESC LIMIT ${q.perPage} OFFSET ${(q.page - 1) * q.perPage}`.pipe(allKeys),
            total: sql`SELECT count(*)::int AS n FROM federation_api_keys WHERE ${where}`.pipe(
              count,
              Effect.map((row) => row.n)
            )
          }, { concurrency: 2 })
        }),

      findById: (id: number) =>
        db.query((tenantId) =>
          sql`SELECT ${columns} FROM federation_api_keys WHERE tenant_id = ${tenantId} AND id = ${id}`.pipe(firstKey)
        ),

      /** Revokes an active key of the tenant; none when there is no such key or it is revoked already. */
      revoke: (id: number) =>
        db.query((tenantId) =>
          sql`
            UPDATE federation_api_keys SET status = 'revoked', revoked_at = now()
            WHERE tenant_id = ${tenantId} AND id = ${id} AND status = 'active'
            RETURNING ${columns}`.pipe(firstKey)
        )
    } as const
  })
}) {}
