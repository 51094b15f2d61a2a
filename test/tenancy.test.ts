import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { apiClient, expectError, expectStatus } from "./fixtures/client.js"
import { makeTenant, suspendTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"

const errorOf = (body: unknown) => (body as { errors: Array<{ code: string; message: string; field?: string }> }).errors

/** `GET /api/v2/tenant` sent with `headers` (tenant headers, host), through the typed client. */
const currentTenant = (headers: Record<string, string>) =>
  Effect.flatMap(apiClient(headers), (client) => client.tenancy.current({ withResponse: true }))

layer(TestApp({ BASE_DOMAIN: "timebank.test" }), { excludeTestServices: true, timeout: "90 seconds" })(
  "tenant resolution",
  (it) => {
    it.effect("X-Tenant-ID names the tenant and the typed client reads it", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant({ name: "Riverside" })
        const client = yield* apiClient(tenantHeaders(tenant))
        const { data, meta } = yield* client.tenancy.current()
        assert.strictEqual(data.id, tenant.id)
        assert.strictEqual(data.name, "Riverside")
        assert.deepStrictEqual(meta, {})
        assert.strictEqual(data.features["events"], true)
        assert.strictEqual(data.features["federation"], false)
      }))

    it.effect("X-Tenant-Slug names the tenant", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const res = yield* currentTenant({ "x-tenant-slug": tenant.slug }).pipe(expectStatus(200))
        assert.strictEqual(res.data.slug, tenant.slug)
      }))

    it.effect("X-Tenant-ID wins over X-Tenant-Slug, which wins over the host", () =>
      Effect.gen(function*() {
        const a = yield* makeTenant()
        const b = yield* makeTenant()
        const byId = yield* currentTenant({
          "x-tenant-id": String(a.id),
          "x-tenant-slug": b.slug,
          host: `${b.slug}.timebank.test`
        }).pipe(expectStatus(200))
        assert.strictEqual(byId.data.id, a.id)
        const bySlug = yield* currentTenant({ "x-tenant-slug": b.slug, host: `${a.slug}.timebank.test` }).pipe(
          expectStatus(200)
        )
        assert.strictEqual(bySlug.data.id, b.id)
      }))

    it.effect("the host names the tenant: a subdomain of BASE_DOMAIN or the tenant's own domain", () =>
      Effect.gen(function*() {
        const sub = yield* makeTenant()
        const own = yield* makeTenant({ domain: `bank-${sub.slug}.example.org` })
        const bySub = yield* currentTenant({ host: `${sub.slug}.timebank.test:3000` }).pipe(expectStatus(200))
        assert.strictEqual(bySub.data.id, sub.id)
        const byDomain = yield* currentTenant({ host: `BANK-${sub.slug}.example.org` }).pipe(expectStatus(200))
        assert.strictEqual(byDomain.data.id, own.id)
      }))

    it.effect("nothing naming a tenant is 400 tenant_required (typed error on the client too)", () =>
      Effect.gen(function*() {
        const none = yield* currentTenant({}).pipe(expectError(400, "tenant_required"))
        assert.strictEqual(none.error._tag, "TenantRequired")
        for (const host of ["localhost", "127.0.0.1:3000", "timebank.test", "unknown-host.example.net"]) {
          yield* currentTenant({ host }).pipe(expectError(400, "tenant_required"))
        }
      }))

    it.effect("a header or subdomain naming no tenant is 400 tenant_resolution_failed", () =>
      Effect.gen(function*() {
        const cases: Array<Record<string, string>> = [
          { "x-tenant-id": "987654321" },
          { "x-tenant-id": "not-a-number" },
          { "x-tenant-id": "-1" },
          { "x-tenant-slug": "no-such-community" },
          { host: "no-such-community.timebank.test" }
        ]
        for (const headers of cases) {
          yield* currentTenant(headers).pipe(expectError(400, "tenant_resolution_failed"))
        }
      }))

    it.effect("a suspended tenant is 400 tenant_resolution_failed from every source", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        yield* currentTenant(tenantHeaders(tenant)).pipe(expectStatus(200))
        yield* suspendTenant(tenant.id)
        for (
          const headers of [tenantHeaders(tenant), { "x-tenant-slug": tenant.slug }, {
            host: `${tenant.slug}.timebank.test`
          }]
        ) {
          yield* currentTenant(headers).pipe(expectError(400, "tenant_resolution_failed"))
        }
      }))
  }
)

describe("health, docs and the edge", () => {
  layer(TestApp(), { excludeTestServices: true, timeout: "90 seconds" })("served", (it) => {
    it.effect("health answers with and without a tenant; framework health is exactly {status: ok}", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        for (const headers of [{}, tenantHeaders(tenant), { "x-tenant-slug": "nope" }]) {
          const client = yield* apiClient(headers)
          const health = yield* client.system.health({ withResponse: true }).pipe(expectStatus(200))
          assert.deepStrictEqual(health, { status: "ok" })
        }
        // Not part of the contract: raw.
        const framework = yield* rawRequest("GET", "/api/framework/health")
        assert.strictEqual(framework.status, 200)
        assert.deepStrictEqual(framework.body, { status: "ok" })
      }))

    it.effect("readiness checks the database (and Redis when configured)", () =>
      Effect.gen(function*() {
        const client = yield* apiClient()
        const ready = yield* client.system.ready()
        assert.strictEqual(ready.status, "ok")
        assert.strictEqual(ready.checks.database, "ok")
        assert.strictEqual(ready.checks.redis, process.env["REDIS_URL"] ? "ok" : "not_configured")
      }))

    it.effect("OpenAPI at /api/v2/openapi.json has version 2.0.0 and every route; docs page at /api/docs", () =>
      Effect.gen(function*() {
        // Documents, not the API: raw.
        const res = yield* rawRequest("GET", "/api/v2/openapi.json")
        assert.strictEqual(res.status, 200)
        const doc = res.body as { info: { version: string }; paths: Record<string, unknown> }
        assert.strictEqual(doc.info.version, "2.0.0")
        for (const path of ["/api/v2/health", "/api/v2/health/ready", "/api/v2/tenant"]) {
          assert.ok(doc.paths[path], path)
        }
        const docs = yield* rawRequest("GET", "/api/docs")
        assert.strictEqual(docs.status, 200)
        assert.match(docs.headers["content-type"] ?? "", /text\/html/)
        assert.match(docs.text, /swagger/i)
      }))

    it.effect("X-Request-Id is echoed when sent and generated otherwise, on success and on error", () =>
      Effect.gen(function*() {
        // Response headers of successes and errors alike: raw.
        const echoed = yield* rawRequest("GET", "/api/v2/health", { headers: { "x-request-id": "req-123" } })
        assert.strictEqual(echoed.headers["x-request-id"], "req-123")
        const generated = yield* rawRequest("GET", "/api/v2/tenant")
        assert.strictEqual(generated.status, 400)
        assert.match(generated.headers["x-request-id"] ?? "", /^[0-9a-f-]{36}$/)
        const junk = yield* rawRequest("GET", "/api/v2/health", { headers: { "x-request-id": "bad id with spaces" } })
        assert.notStrictEqual(junk.headers["x-request-id"], "bad id with spaces")
      }))

    it.effect("an unknown route is 404 NOT_FOUND; a known path with a wrong method is 405 with Allow", () =>
      Effect.gen(function*() {
        // Routes outside the contract: raw.
        const missing = yield* rawRequest("GET", "/api/v2/no-such-thing")
        assert.strictEqual(missing.status, 404)
        assert.deepStrictEqual(errorOf(missing.body), [{ code: "NOT_FOUND", message: "No such route" }])
        const wrong = yield* rawRequest("DELETE", "/api/v2/health")
        assert.strictEqual(wrong.status, 405)
        assert.strictEqual(errorOf(wrong.body)[0]!.code, "METHOD_NOT_ALLOWED")
        assert.strictEqual(wrong.headers["allow"], "GET")
      }))
  })
})
