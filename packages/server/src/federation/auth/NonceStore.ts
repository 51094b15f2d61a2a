import { SqlClient } from "@effect/sql"
import { Effect, Option } from "effect"
import type { Redis as IORedis } from "ioredis"
import { AppConfig } from "../../platform/AppConfig.js"
import { Redis } from "../../platform/Redis.js"
import { dieOnSqlError } from "../../platform/TenantSql.js"
import { NONCE_TTL_SECONDS } from "../signing/FederationSignature.js"

/** Where used nonces are kept: `claim` answers true the first time a key presents a nonce within its TTL. */
export interface NonceClaims {
  readonly claim: (keyId: number, nonce: string) => Effect.Effect<boolean>
}

/** How often (at most) one process deletes expired rows of `federation_nonces`. */
const PURGE_EVERY_MILLIS = 60_000

/**
 * Nonces in PostgreSQL (no `REDIS_URL`): one row per key and nonce. A row whose time is over counts as unused, so
 * a late purge never refuses a nonce; expired rows are deleted at most once a minute, by whichever claim comes.
 */
export const pgNonceStore = (sql: SqlClient.SqlClient, ttlSeconds = NONCE_TTL_SECONDS): NonceClaims => {
  let lastPurge = 0
  const purge = Effect.suspend(() => {
    const now = Date.now()
    if (now - lastPurge < PURGE_EVERY_MILLIS) return Effect.void
    lastPurge = now
    return sql`DELETE FROM federation_nonces WHERE expires_at < now()`.pipe(Effect.asVoid, Effect.ignore)
  })
  return {
    claim: (keyId, nonce) =>
      sql<{ key_id: string }>`
        INSERT INTO federation_nonces (key_id, nonce, expires_at)
        VALUES (${keyId}, ${nonce}, now() + make_interval(secs => ${ttlSeconds}))
        ON CONFLICT (key_id, nonce) DO UPDATE SET expires_at = EXCLUDED.expires_at
          WHERE federation_nonces.expires_at <= now()
        RETURNING key_id`.pipe(
        dieOnSqlError,
        Effect.map((rows) => rows.length === 1),
        Effect.zipLeft(purge)
      )
  }
}

/** Nonces in Redis: `SET key 1 NX PX ttl`, so every process sees the same nonces and Redis forgets them. */
export const redisNonceStore = (client: IORedis, keyPrefix: string, ttlSeconds = NONCE_TTL_SECONDS) => ({
  claim: (keyId: number, nonce: string) =>
    Effect.tryPromise(() =>
      client.set(`${keyPrefix}federation-nonce:${keyId}:${nonce}`, "1", "PX", ttlSeconds * 1000, "NX")
    )
      .pipe(Effect.map((answer) => answer === "OK"))
})

/**
 * The single-use nonces of HMAC-signed federation requests (decisions D13: 10 minutes, per key). Redis when
 * `REDIS_URL` is set, PostgreSQL otherwise. When Redis does not answer, the claim goes to PostgreSQL instead of
 * failing the request: during an outage a nonce is then checked only against that store.
 */
export class NonceStore extends Effect.Service<NonceStore>()("FederationNonceStore", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const redis = yield* Redis
    const { redisKeyPrefix } = yield* AppConfig
    const pg = pgNonceStore(sql)
    const claim = Option.match(redis.client, {
      onNone: () => pg.claim,
      onSome: (client) => {
        const shared = redisNonceStore(client, redisKeyPrefix)
        return (keyId: number, nonce: string) =>
          shared.claim(keyId, nonce).pipe(
            Effect.timeout("1 second"),
            Effect.catchAll((error) =>
              Effect.zipRight(
                Effect.logWarning("federation nonce store (Redis) unavailable; using PostgreSQL", error),
                pg.claim(keyId, nonce)
              )
            )
          )
      }
    })
    return { claim } satisfies NonceClaims
  })
}) {}
