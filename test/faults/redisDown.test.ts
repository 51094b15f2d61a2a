import { SqlClient } from "@effect/sql"
import { assert, describe, it } from "@effect/vitest"
import { signedHeaders } from "@timebank/server"
import { Duration, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import { community } from "../fixtures/community.js"
import { apiProcess, deployment, type Operator, operatorOn } from "../fixtures/deployment.js"
import { federationOn, makeApiKey } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { type Answer, report, send, transactionIdOf } from "../fixtures/load.js"
import { privateRedis } from "../fixtures/privateServices.js"
import { randomIp } from "../fixtures/servers.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"

/**
 * What an answer may take: no request may wait for Redis beyond its stores' own limits (the route limit gives up
 * after 1 s, the other users of Redis at once), with room for a starved CI machine (a login hashes a password).
 */
const WITHIN = Duration.seconds(10)

/**
 * How long Redis stays down before the long-outage check: ioredis waits 50 ms more before each reconnection attempt,
 * so after 15 s its attempts are about a second apart, the store's command timeout.
 */
const LONG_OUTAGE_MS = 15_000

/** The slowest answer seen while Redis was down, for the report. */
let slowestWhileDown = 0

const assertAnswered = (a: Answer, status: number, what: string) => {
  assert.strictEqual(a.status, status, `${what}: ${JSON.stringify(a.body)}`)
  assert.isBelow(a.ms, Duration.toMillis(WITHIN), `${what} answered in ${a.ms} ms`)
  slowestWhileDown = Math.max(slowestWhileDown, a.ms)
}

const rateLimited = (a: Answer) => a.headers?.get("x-ratelimit-limit") !== null

/** Retries `check` every 100 ms until it holds; how long that took (ms), or a failure after `limit`. */
const eventually = (what: string, check: Effect.Effect<boolean>, limit = Duration.seconds(10)) =>
  Effect.gen(function*() {
    const started = Date.now()
    while (!(yield* check)) {
      if (Date.now() - started > Duration.toMillis(limit)) {
        return yield* Effect.die(new Error(`${what}: not within ${Duration.format(limit)}`))
      }
      yield* Effect.sleep("100 millis")
    }
    return Date.now() - started
  })

describe("Redis down (a private redis-server killed and started again under an API process)", () => {
  it.scopedLive(
    "reads and writes keep working, limits and nonces fall back as documented, and Redis back is used again",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const redis = yield* privateRedis
        const d = deployment(db.url, redis.url, { JOBS_SCHEDULER: "off" })
        const api = yield* apiProcess(d)
        const ops = yield* Layer.build(operatorOn(d, api))
        const on = <A, E>(effect: Effect.Effect<A, E, Operator>) => Effect.provide(effect, ops)

        const c = yield* on(community({ settings: { starting_balance: 0 }, signIn: "token", fund: { member: 50 } }))
        yield* on(federationOn(c.tenant, ["listings"]))
        const key = yield* on(makeApiKey(c.tenant, { scopes: ["listings:read"], signing: true }))
        const listings = "/api/v1/federation/listings"
        const signed = (nonce: string) =>
          send(api.base, "GET", listings, {
            authorization: `Bearer ${key.apiKey}`,
            ...signedHeaders({
              secret: key.signingSecret!,
              platformId: key.prefix,
              method: "GET",
              path: listings,
              body: "",
              nonce,
              nowMillis: Date.now()
            })
          })
        const login = (password: string) =>
          send(api.base, "POST", "/api/v2/auth/login", {
            "x-tenant-id": String(c.tenant.id),
            "x-forwarded-for": randomIp()
          }, { email: c.member.email, password })
        const pay = () =>
          send(api.base, "POST", "/api/v2/wallet/transfers", {
            ...c.member.headers,
            "idempotency-key": randomUUID()
          }, { recipient_id: c.other.id, amount: 1, description: "while Redis is down" })
        const cacheChannel = `${d.redisKeyPrefix}cache`
        const cacheSubscribers = Effect.map(redis.cli("PUBSUB", "NUMSUB", cacheChannel), (out) => Number(out[1]))
        const keysLike = (pattern: string) => redis.cli("KEYS", `${d.redisKeyPrefix}${pattern}`)

        // Redis up: the route limit counts there (its headers come only from a store that answered: with Redis set
        // there is no other), nonces are kept there, and the API's cache bus (and the operator's) listen there.
        const first = yield* login(c.member.password)
        assertAnswered(first, 200, "login")
        assert.isTrue(rateLimited(first))
        assert.strictEqual(yield* cacheSubscribers, 2)
        assertAnswered(yield* signed(randomUUID()), 200, "signed federation read")
        assert.isNotEmpty(yield* keysLike("federation-nonce:*"))

        yield* redis.kill
        const killedAt = Date.now()
        slowestWhileDown = 0
        const acknowledged: Array<number> = []
        for (let round = 0; round < 3; round++) {
          const paid = yield* pay()
          assertAnswered(paid, 201, "transfer")
          acknowledged.push(transactionIdOf(paid))
          assertAnswered(yield* send(api.base, "GET", "/api/v2/wallet", c.member.headers), 200, "wallet read")
          // Limits fail open: answered as usual, without rate-limit headers (decisions "Rate limits").
          const ok = yield* login(c.member.password)
          assertAnswered(ok, 200, "login")
          assert.isFalse(rateLimited(ok))
          assertAnswered(yield* login("wrong password"), 401, "failed login")
        }
        // Nonces go to PostgreSQL: a replay is still refused while Redis is gone.
        const nonce = randomUUID()
        assertAnswered(yield* signed(nonce), 200, "signed federation read")
        const replay = yield* signed(nonce)
        assertAnswered(replay, 409, "replayed nonce")

        // A long outage: by now the store's client retries seconds apart, and a command queued for it would wait
        // for its 1 s timeout. A limited route does not ask a store its process sees down: it answers at once.
        yield* Effect.sleep(Duration.millis(Math.max(0, LONG_OUTAGE_MS - (Date.now() - killedAt))))
        const directoryReads = yield* Effect.forEach(
          Array.from({ length: 5 }),
          () => send(api.base, "GET", "/api/v2/volunteering/organisations", c.visitor.headers)
        )
        for (const read of directoryReads) {
          assertAnswered(read, 200, "directory read in a long outage")
          assert.isFalse(rateLimited(read))
        }
        const medianRead = directoryReads.map((a) => a.ms).sort((a, b) => a - b)[2]!
        assert.isBelow(medianRead, 500, `a limited route waited for the store: median ${medianRead} ms`)

        // Redis back (empty, on the same port): limits count there again, nonces go there, the buses re-subscribe.
        const slowest = slowestWhileDown
        yield* redis.start
        const back = Date.now()
        const limitsBack = yield* eventually(
          "rate limits counted in the restarted Redis",
          Effect.gen(function*() {
            const answer = yield* login(c.member.password)
            return answer.status === 200 && rateLimited(answer)
          })
        )
        yield* eventually("the cache bus subscribed again", Effect.map(cacheSubscribers, (n) => n === 2))
        const busBack = Date.now() - back
        yield* eventually(
          "nonces kept in the restarted Redis",
          Effect.gen(function*() {
            const answer = yield* signed(randomUUID())
            return answer.status === 200 && (yield* keysLike("federation-nonce:*")).length > 0
          })
        )
        assertAnswered(yield* pay(), 201, "transfer")
        yield* report(
          `Redis down: slowest answer ${slowest} ms, directory median ${medianRead} ms after ${LONG_OUTAGE_MS} ms; Redis back: limits counted there after ${limitsBack} ms, ` +
            `buses re-subscribed after ${busBack} ms`
        )

        // Every transfer acknowledged while Redis was down is in the ledger, which balances.
        const stored = yield* on(Effect.flatMap(SqlClient.SqlClient, (sql) =>
          sql<{ id: string }>`SELECT id FROM ledger_transactions WHERE id IN ${sql.in(acknowledged)}`))
        assert.strictEqual(stored.length, acknowledged.length)
        assert.isTrue((yield* on(verifyLedger(c.tenant.id))).ok)
      }),
    240_000
  )
})
