import { SqlClient, type Statement } from "@effect/sql"
import type { FederationScope } from "@timebank/domain"
import { Effect, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import { SecretBox } from "../../platform/SecretBox.js"
import { DbDate, DbInt, decodeFirst } from "../../platform/SqlRows.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"

/** SHA-256 of an API key, hex: the only form in which keys are stored. */
export const hashApiKey = (apiKey: string) => createHash("sha256").update(apiKey, "utf8").digest("hex")

const StoredKeyRow = Schema.Struct({
  id: DbInt,
  tenant_id: DbInt,
  partner_id: Schema.NullOr(DbInt),
  partner_status: Schema.NullOr(Schema.String),
  key_prefix: Schema.String,
  scopes: Schema.Array(Schema.String),
  rate_limit_per_minute: DbInt,
  signing_secret: Schema.NullOr(Schema.String),
  status: Schema.Literal("active", "revoked"),
  expires_at: Schema.NullOr(DbDate)
})

/** An inbound API key as authentication needs it, its signing secret opened. */
export interface StoredKey {
  readonly id: number
  readonly tenantId: number
  readonly partnerId: number | null
  /** The bound partner's status (`pending`, `active`, `suspended`, `failed`), null without a partner. */
  readonly partnerStatus: string | null
  readonly keyPrefix: string
  readonly scopes: ReadonlyArray<FederationScope>
  readonly rateLimitPerMinute: number
  readonly signingSecret: Option.Option<string>
  /** Not revoked and not past `expires_at` at the time of the read. */
  readonly usable: boolean
}

/**
 * Looks up inbound API keys for authentication. Never cached: a revoked or expired key must fail at once on every
 * runner, and each lookup is one indexed read (`key_hash` and `key_prefix` are unique).
 */
export class ApiKeyStore extends Effect.Service<ApiKeyStore>()("ApiKeyStore", {
  dependencies: [SecretBox.Default],
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const box = yield* SecretBox

    const select = (where: Statement.Fragment) =>
      sql`
        SELECT k.id, k.tenant_id, k.partner_id, p.status AS partner_status, k.key_prefix, k.scopes,
               k.rate_limit_per_minute, k.signing_secret, k.status, k.expires_at
        FROM federation_api_keys k
        LEFT JOIN federation_partners p ON p.id = k.partner_id AND p.deleted_at IS NULL
        WHERE ${where}`.pipe(decodeFirst(StoredKeyRow), dieOnSqlError)

    const toStored = (row: typeof StoredKeyRow.Type) =>
      Effect.gen(function*() {
        const signingSecret = row.signing_secret === null
          ? Option.none<string>()
          : Option.some(yield* box.open(row.signing_secret))
        return {
          id: row.id,
          tenantId: row.tenant_id,
          partnerId: row.partner_id,
          partnerStatus: row.partner_id === null ? null : row.partner_status ?? "deleted",
          keyPrefix: row.key_prefix,
          scopes: row.scopes as ReadonlyArray<FederationScope>,
          rateLimitPerMinute: row.rate_limit_per_minute,
          signingSecret,
          usable: row.status === "active" && (row.expires_at === null || row.expires_at.getTime() > Date.now())
        } satisfies StoredKey
      })

    const find = (where: Statement.Fragment) =>
      Effect.flatMap(
        select(where),
        Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (row) => Effect.asSome(toStored(row))
        })
      )

    return {
      /** The key whose SHA-256 is `hashApiKey(apiKey)`. */
      byApiKey: (apiKey: string) => find(sql`k.key_hash = ${hashApiKey(apiKey)}`),
      /** The key named by its prefix (`X-Federation-Platform-ID`). */
      byPrefix: (prefix: string) => find(sql`k.key_prefix = ${prefix}`),
      /** The key a JWT names. */
      byId: (id: number) => find(sql`k.id = ${id}`),
      /** Notes the use of a key (for the admin list); never fails a request. */
      touch: (id: number) =>
        sql`UPDATE federation_api_keys SET last_used_at = now() WHERE id = ${id}`.pipe(Effect.asVoid, Effect.ignore)
    } as const
  })
}) {}
