import { assert, describe, it, layer } from "@effect/vitest"
import { Effect, Layer, Schedule } from "effect"
import pg from "pg"
import { inject } from "vitest"
import { apiClient, expectStatus } from "../fixtures/client.js"
import { TestServerOn } from "../fixtures/servers.js"
import { makeTenant, tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { freshDatabase } from "../fixtures/TestDatabase.js"

const errorsOf = (body: unknown) =>
  (body as { errors: Array<{ code: string; message: string; field?: string }> }).errors

/** A statement as the run's PostgreSQL administrator (not through the server under test), in `url`'s database. */
const asAdmin = (text: string, url = inject("adminDatabaseUrl")) =>
  Effect.promise(async () => {
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    try {
      await client.query(text)
    } finally {
      await client.end()
    }
  })

/** Its database refuses new connections and loses the open ones: to the server, the database is gone. */
const cutOff = (database: string) =>
  Effect.zipRight(
    asAdmin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS false`),
    asAdmin(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}'`)
  )

const reconnect = (database: string) => asAdmin(`ALTER DATABASE ${database} WITH ALLOW_CONNECTIONS true`)

const redisCheck = process.env["REDIS_URL"] ? "ok" : "not_configured"

layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("health probes (single runner)", (it) => {
  it.effect("health and live answer {status: ok}; ready reports database, Redis and the runner", () =>
    Effect.gen(function*() {
      const client = yield* apiClient()
      assert.deepStrictEqual(yield* client.system.health({ withResponse: true }).pipe(expectStatus(200)), {
        status: "ok"
      })
      assert.deepStrictEqual(yield* client.system.live({ withResponse: true }).pipe(expectStatus(200)), {
        status: "ok"
      })
      assert.deepStrictEqual(yield* client.system.ready({ withResponse: true }).pipe(expectStatus(200)), {
        status: "ok",
        checks: { database: "ok", redis: redisCheck, runner: "ok" }
      })
    }))

  it.effect("public: no tenant or token needed, and a tenant header naming nothing changes nothing", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const cases = [{}, tenantHeaders(tenant), { "x-tenant-slug": "no-such-community" }, { "x-tenant-id": "x" }, {
        authorization: "Bearer not-a-token"
      }]
      for (const headers of cases) {
        // Exact status and body whatever the headers say: raw.
        for (const path of ["/api/v2/health", "/api/v2/health/live", "/api/v2/health/ready"]) {
          const res = yield* rawRequest("GET", path, { headers })
          assert.strictEqual(res.status, 200, `${path} ${JSON.stringify(headers)}`)
          assert.strictEqual((res.body as { status: string }).status, "ok")
        }
      }
    }))

  it.effect("a wrong method on a probe is 405 METHOD_NOT_ALLOWED with Allow: GET, as the edge answers everywhere", () =>
    Effect.gen(function*() {
      // Methods the contract does not have: raw.
      for (const [method, path] of [["POST", "/api/v2/health/live"], ["DELETE", "/api/v2/health/ready"]] as const) {
        const res = yield* rawRequest(method, path)
        assert.strictEqual(res.status, 405, `${method} ${path}`)
        assert.strictEqual(errorsOf(res.body)[0]!.code, "METHOD_NOT_ALLOWED")
        assert.strictEqual(res.headers["allow"], "GET")
      }
      assert.strictEqual((yield* rawRequest("GET", "/api/v2/health/nope")).status, 404)
    }))

  it.effect("the OpenAPI document has the three probes, without security", () =>
    Effect.gen(function*() {
      const doc = (yield* rawRequest("GET", "/api/v2/openapi.json")).body as {
        paths: Record<string, { get?: { security?: Array<unknown> } }>
      }
      for (const path of ["/api/v2/health", "/api/v2/health/live", "/api/v2/health/ready"]) {
        assert.ok(doc.paths[path]?.get, path)
        assert.deepStrictEqual(doc.paths[path]!.get!.security ?? [], [], path)
      }
    }))
})

describe("readiness when a dependency is gone", () => {
  it.scopedLive(
    "database unreachable → ready is 503 SERVICE_UNAVAILABLE naming it, live stays 200; back → 200",
    () =>
      Effect.gen(function*() {
        const db = yield* freshDatabase
        const server = yield* Layer.build(TestServerOn(db.url))
        const on = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof TestServerOn>>>) =>
          Effect.provide(effect, server)
        assert.strictEqual((yield* on(rawRequest("GET", "/api/v2/health/ready"))).status, 200)

        yield* cutOff(db.name)
        yield* Effect.addFinalizer(() => Effect.ignore(reconnect(db.name)))
        // The exact 503 envelope: raw.
        const down = yield* on(rawRequest("GET", "/api/v2/health/ready"))
        assert.strictEqual(down.status, 503)
        const [error, ...more] = errorsOf(down.body)
        assert.deepStrictEqual(more, [])
        assert.strictEqual(error!.code, "SERVICE_UNAVAILABLE")
        assert.strictEqual(error!.field, "database")
        assert.match(error!.message, /^Not ready: database failing, redis (ok|not_configured), runner failing$/)
        // Liveness touches nothing: the process still answers.
        assert.strictEqual((yield* on(rawRequest("GET", "/api/v2/health/live"))).status, 200)
        assert.strictEqual((yield* on(rawRequest("GET", "/api/v2/health"))).status, 200)

        // The pool reconnects by itself once the database accepts connections again.
        yield* reconnect(db.name)
        const back = yield* on(rawRequest("GET", "/api/v2/health/ready")).pipe(
          Effect.filterOrFail((res) => res.status === 200, () => "still 503"),
          Effect.retry(Schedule.spaced("250 millis").pipe(Schedule.upTo("15 seconds")))
        )
        assert.deepStrictEqual(back.body, { status: "ok", checks: { database: "ok", redis: redisCheck, runner: "ok" } })
      }),
    90_000
  )

  it.scopedLive("a runner marked unhealthy in cluster_runners → 503 naming the runner", () =>
    Effect.gen(function*() {
      const db = yield* freshDatabase
      const server = yield* Layer.build(TestServerOn(db.url))
      const on = <A, E>(effect: Effect.Effect<A, E, Layer.Layer.Success<ReturnType<typeof TestServerOn>>>) =>
        Effect.provide(effect, server)
      // The runner sets itself healthy again within a second when it finds no healthy runner; ask right after.
      const res = yield* Effect.gen(function*() {
        yield* asAdmin(`UPDATE cluster_runners SET healthy = false`, db.url)
        return yield* on(rawRequest("GET", "/api/v2/health/ready"))
      }).pipe(Effect.repeat({ until: (r) => r.status === 503, times: 5 }))
      assert.strictEqual(res.status, 503)
      assert.strictEqual(errorsOf(res.body)[0]!.field, "runner")
      assert.match(errorsOf(res.body)[0]!.message, /database ok, redis (ok|not_configured), runner failing$/)
    }), 90_000)
})
