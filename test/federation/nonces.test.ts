import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { AppConfig, NonceStore, pgNonceStore, Redis, redisNonceStore } from "@timebank/server"
import { ConfigProvider, Effect, Layer, Logger } from "effect"
import { Redis as IORedis } from "ioredis"
import { randomUUID } from "node:crypto"
import { TestPlatform } from "../fixtures/TestApp.js"

/** Key ids no other test uses (the nonce tables and Redis are shared by the file's tests). */
let nextKey = 1_000_000 + Math.floor(Math.random() * 1_000_000)
const freshKey = () => nextKey++

const rowsOf = (keyId: number) =>
  Effect.flatMap(SqlClient.SqlClient, (sql) =>
    sql<{ nonce: string; seconds: number }>`
      SELECT nonce, round(extract(epoch FROM expires_at - now()))::int AS seconds
      FROM federation_nonces WHERE key_id = ${keyId}`)

layer(TestPlatform(), { excludeTestServices: true, timeout: "120 seconds" })("federation nonces", (it) => {
  it.effect("the configured store (Redis with REDIS_URL, else PostgreSQL) takes a nonce once per key", () =>
    Effect.gen(function*() {
      const store = yield* Effect.provide(NonceStore, NonceStore.Default)
      const key = freshKey()
      const nonce = randomUUID()
      assert.isTrue(yield* store.claim(key, nonce))
      assert.isFalse(yield* store.claim(key, nonce))
      assert.isTrue(yield* store.claim(freshKey(), nonce))
      assert.isTrue(yield* store.claim(key, randomUUID()))
    }))

  it.effect("PostgreSQL: single use for ten minutes per key; an expired row counts as unused; old rows are purged", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const store = pgNonceStore(sql)
      const key = freshKey()
      assert.isTrue(yield* store.claim(key, "nonce-0001"))
      assert.isFalse(yield* store.claim(key, "nonce-0001"))
      assert.isTrue(yield* store.claim(freshKey(), "nonce-0001"))
      const [row] = yield* rowsOf(key)
      assert.strictEqual(row?.nonce, "nonce-0001")
      assert.isTrue(Math.abs(row!.seconds - 600) <= 2, String(row?.seconds))

      const short = pgNonceStore(sql, 1)
      const shortKey = freshKey()
      assert.isTrue(yield* short.claim(shortKey, "nonce-0002"))
      assert.isFalse(yield* short.claim(shortKey, "nonce-0002"))
      yield* Effect.sleep("1200 millis")
      assert.isTrue(yield* short.claim(shortKey, "nonce-0002"))

      // A store's first claim purges expired rows (then at most once a minute).
      const stale = freshKey()
      yield* sql`
        INSERT INTO federation_nonces (key_id, nonce, expires_at) VALUES (${stale}, 'stale-nonce', now() - interval '1 minute')`
      assert.isTrue(yield* pgNonceStore(sql).claim(freshKey(), "nonce-0003"))
      assert.deepStrictEqual(yield* rowsOf(stale), [])
      assert.strictEqual((yield* rowsOf(key)).length, 1)
    }))

  it.effect("Redis: SET NX PX with the deployment's key prefix, ten minutes", () =>
    Effect.gen(function*() {
      const url = process.env["REDIS_URL"] ?? "redis://127.0.0.1:6379"
      const client = yield* Effect.acquireRelease(
        Effect.sync(() => new IORedis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })),
        (c) => Effect.promise(() => c.quit())
      )
      const prefix = `nonce-test-${randomUUID()}:`
      const store = redisNonceStore(client, prefix)
      const key = freshKey()
      assert.isTrue(yield* store.claim(key, "nonce-0001"))
      assert.isFalse(yield* store.claim(key, "nonce-0001"))
      assert.isTrue(yield* store.claim(freshKey(), "nonce-0001"))
      const ttl = yield* Effect.promise(() => client.pttl(`${prefix}federation-nonce:${key}:nonce-0001`))
      assert.isTrue(ttl > 595_000 && ttl <= 600_000, String(ttl))
    }).pipe(Effect.scoped))

  it.effect("when Redis does not answer, nonces go to PostgreSQL instead of failing the request", () =>
    Effect.gen(function*() {
      const downRedis = ConfigProvider.fromMap(new Map([["REDIS_URL", "redis://127.0.0.1:1"]])).pipe(
        ConfigProvider.orElse(() => ConfigProvider.fromEnv())
      )
      const store = yield* Effect.provide(
        NonceStore,
        NonceStore.Default.pipe(Layer.provide(Redis.Default), Layer.provide(AppConfig.Default))
      ).pipe(Effect.withConfigProvider(downRedis))
      const warnings: Array<unknown> = []
      const collect = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => warnings.push(message)))
      const key = freshKey()
      assert.isTrue(yield* Effect.provide(store.claim(key, "nonce-0004"), collect))
      assert.isFalse(yield* Effect.provide(store.claim(key, "nonce-0004"), collect))
      assert.strictEqual((yield* rowsOf(key)).length, 1)
      assert.include(JSON.stringify(warnings), "Redis) unavailable; using PostgreSQL")
    }))
})
