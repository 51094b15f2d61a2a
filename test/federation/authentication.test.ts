import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import type { FederationScope } from "@timebank/domain"
import { signedHeaders, SWITCHES_TTL } from "@timebank/server"
import { Duration, Effect } from "effect"
import { randomUUID } from "node:crypto"
import {
  federationCall,
  federationOn,
  makeApiKey,
  makePartner,
  setPlatformFederation,
  setToggles,
  setWhitelisted
} from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { makeTenant } from "../fixtures/tenants.js"
import { rawRequest } from "../fixtures/TestApp.js"
import {
  expectRefusal,
  FederationProbeApp,
  PROBE_LISTINGS,
  PROBE_MEMBERS,
  PROBE_REVIEWS,
  signedCall
} from "./federationProbe.js"

const TEST = "/api/v1/federation/webhooks/test"

/** Waits until every cached copy of the switches has expired on the server (`SWITCHES_TTL`). */
const afterSwitchesTtl = Effect.sleep(Duration.sum(SWITCHES_TTL, Duration.millis(300)))

/** A tenant with federation on (platform, whitelist, every toggle) and a key of it. */
const federatedKey = (
  options: Parameters<typeof makeApiKey>[1] = {},
  toggles?: Parameters<typeof federationOn>[1]
) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant()
    yield* federationOn(tenant, toggles)
    const key = yield* makeApiKey(tenant, options)
    return { tenant, key }
  })

layer(FederationProbeApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation gate", (it) => {
  it.effect("a key as bearer or X-API-Key passes and provides the caller; nothing presented is 401", () =>
    Effect.gen(function*() {
      const { key, tenant } = yield* federatedKey({ scopes: ["listings:read", "members:read"] })
      const ok = yield* federationCall("GET", PROBE_LISTINGS, { key })
      assert.strictEqual(ok.status, 200)
      assert.deepStrictEqual((ok.body as { data: unknown }).data, {
        key_id: key.id,
        tenant_id: tenant.id,
        partner_id: null,
        scopes: ["listings:read", "members:read"],
        method: "api_key"
      })
      const byHeader = yield* rawRequest("GET", PROBE_LISTINGS, { headers: { "x-api-key": key.apiKey } })
      assert.strictEqual(byHeader.status, 200)
      expectRefusal(yield* rawRequest("GET", PROBE_LISTINGS), 401, "AUTH_REQUIRED")
      const basic = yield* rawRequest("GET", PROBE_LISTINGS, { headers: { authorization: "Basic eDp5" } })
      expectRefusal(basic, 401, "AUTH_REQUIRED")
      // The key's use is noted for the admin list.
      const sql = yield* SqlClient.SqlClient
      yield* Effect.sleep("200 millis")
      const [row] = yield* sql<{ used: boolean }>`
        SELECT last_used_at IS NOT NULL AS used FROM federation_api_keys WHERE id = ${key.id}`
      assert.isTrue(row?.used)
    }))

  it.effect("unknown, revoked and expired keys are 401 INVALID_API_KEY", () =>
    Effect.gen(function*() {
      const { tenant } = yield* federatedKey()
      const unknown = { id: 0, tenantId: tenant.id, apiKey: `tbk_${"0".repeat(64)}`, prefix: "tbk_00000000" }
      const revoked = yield* makeApiKey(tenant, { status: "revoked" })
      const expired = yield* makeApiKey(tenant, { expiresAt: new Date(Date.now() - 1000) })
      for (const key of [{ ...unknown, signingSecret: undefined }, revoked, expired]) {
        expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key }), 401, "INVALID_API_KEY")
      }
      // Revoking a key that worked a moment ago takes effect at once.
      const live = yield* makeApiKey(tenant)
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key: live })).status, 200)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE federation_api_keys SET status = 'revoked', revoked_at = now() WHERE id = ${live.id}`
      expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key: live }), 401, "INVALID_API_KEY")
    }))

  it.effect("the tenant comes from the key; a tenant header naming another community is 403 TENANT_MISMATCH", () =>
    Effect.gen(function*() {
      const { key, tenant } = yield* federatedKey()
      const other = yield* makeTenant()
      const own = yield* federationCall("GET", PROBE_LISTINGS, {
        key,
        headers: { "x-tenant-id": String(tenant.id), "x-tenant-slug": tenant.slug }
      })
      assert.strictEqual(own.status, 200)
      for (const headers of [{ "x-tenant-id": String(other.id) }, { "x-tenant-slug": other.slug }]) {
        expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key, headers }), 403, "TENANT_MISMATCH")
      }
      // Before the whitelist: a key of a community that is not whitelisted still hears about the mismatch.
      yield* setWhitelisted(tenant, false)
      yield* afterSwitchesTtl
      const mismatch = yield* federationCall("GET", PROBE_LISTINGS, {
        key,
        headers: { "x-tenant-id": String(other.id) }
      })
      expectRefusal(mismatch, 403, "TENANT_MISMATCH")
    }))

  it.effect("whitelist off, a suspended community or the route's toggle off is 503 with Retry-After 3600", () =>
    Effect.gen(function*() {
      const notWhitelisted = yield* makeTenant()
      yield* federationOn(notWhitelisted)
      yield* setWhitelisted(notWhitelisted, false)
      // The whitelist comes before the scope: this key lacks the route's scope.
      const key = yield* makeApiKey(notWhitelisted, { scopes: ["members:read"] })
      const res = yield* federationCall("GET", PROBE_LISTINGS, { key })
      expectRefusal(res, 503, "FEDERATION_DISABLED")
      assert.strictEqual(res.headers["retry-after"], "3600")

      const toggledOff = yield* federatedKey({ scopes: ["members:read"] }, ["profiles"])
      const off = yield* federationCall("GET", PROBE_LISTINGS, { key: toggledOff.key })
      expectRefusal(off, 503, "FEDERATION_DISABLED")
      assert.strictEqual(off.headers["retry-after"], "3600")
      assert.strictEqual((yield* federationCall("GET", PROBE_MEMBERS, { key: toggledOff.key })).status, 200)

      const suspended = yield* federatedKey()
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE tenants SET status = 'suspended' WHERE id = ${suspended.tenant.id}`
      yield* Effect.sleep("5100 millis") // the tenant directory's cache
      expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key: suspended.key }), 503, "FEDERATION_DISABLED")
    }))

  it.effect("a missing scope is 403 PERMISSION_DENIED", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ scopes: ["listings:read"] })
      const res = yield* federationCall("GET", PROBE_MEMBERS, { key })
      expectRefusal(res, 403, "PERMISSION_DENIED")
    }))

  it.effect("partners: suspended keys are refused everywhere; writes need a bound, active partner", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      yield* federationOn(tenant)
      const scopes: ReadonlyArray<FederationScope> = ["listings:read", "reviews:write"]
      const body = { rating: 5 }
      const suspendedPartner = yield* makePartner(tenant, { status: "suspended" })
      const suspended = yield* makeApiKey(tenant, { scopes, partnerId: suspendedPartner.id })
      expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key: suspended }), 403, "PERMISSION_DENIED")
      expectRefusal(yield* federationCall("POST", PROBE_REVIEWS, { key: suspended, body }), 403, "PERMISSION_DENIED")

      const unbound = yield* makeApiKey(tenant, { scopes })
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key: unbound })).status, 200)
      expectRefusal(yield* federationCall("POST", PROBE_REVIEWS, { key: unbound, body }), 403, "PERMISSION_DENIED")

      const pendingPartner = yield* makePartner(tenant, { status: "pending" })
      const pending = yield* makeApiKey(tenant, { scopes, partnerId: pendingPartner.id })
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key: pending })).status, 200)
      expectRefusal(yield* federationCall("POST", PROBE_REVIEWS, { key: pending, body }), 403, "PERMISSION_DENIED")

      const activePartner = yield* makePartner(tenant, { status: "active" })
      const active = yield* makeApiKey(tenant, { scopes, partnerId: activePartner.id })
      const written = yield* federationCall("POST", PROBE_REVIEWS, { key: active, body })
      assert.strictEqual(written.status, 201)
      assert.strictEqual((written.body as { data: { partner_id: number } }).data.partner_id, activePartner.id)
      // Validation (422) comes after the gate.
      const invalid = yield* federationCall("POST", PROBE_REVIEWS, { key: active, body: { rating: 9 } })
      expectRefusal(invalid, 422, "VALIDATION_ERROR")
      expectRefusal(
        yield* federationCall("POST", PROBE_REVIEWS, { key: unbound, body: { rating: 9 } }),
        403,
        "PERMISSION_DENIED"
      )
    }))

  it.effect("a key with signing must sign; webhooks take only signed requests", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ signing: true })
      expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key }), 401, "SIGNATURE_REQUIRED")
      const signed = yield* federationCall("GET", PROBE_LISTINGS, { key, sign: true })
      assert.strictEqual(signed.status, 200)
      assert.strictEqual((signed.body as { data: { method: string } }).data.method, "hmac")
      const headersOnly = yield* federationCall("GET", PROBE_LISTINGS, { key, sign: true, bearer: false })
      assert.strictEqual(headersOnly.status, 200)

      const { key: plain } = yield* federatedKey()
      expectRefusal(yield* federationCall("POST", TEST, { key: plain, body: {} }), 401, "SIGNATURE_REQUIRED")
      const test = yield* federationCall("POST", TEST, { key, body: { id: "x", event: "test" }, sign: true })
      assert.deepStrictEqual([test.status, test.body], [200, { data: { ok: true }, meta: {} }])
    }))

  it.effect("a key without signing that signs is checked with its API key; headers alone cannot hold", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey()
      const withBearer = yield* signedCall({ key, method: "POST", path: TEST, bearer: true })
      assert.strictEqual(withBearer.status, 200)
      const wrong = yield* signedCall({ key, method: "POST", path: TEST, bearer: true, secret: "tbs_other" })
      expectRefusal(wrong, 401, "SIGNATURE_INVALID")
      expectRefusal(yield* signedCall({ key, method: "POST", path: TEST }), 401, "SIGNATURE_INVALID")
    }))

  it.effect("HMAC refusals: timestamps, nonces, incomplete headers, another key's platform id", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ signing: true })
      const { key: another } = yield* federatedKey({ signing: true })
      const call = (input: Partial<Parameters<typeof signedCall>[0]>) =>
        signedCall({ key, method: "GET", path: PROBE_LISTINGS, ...input })
      const now = Date.now()
      expectRefusal(yield* call({ nowMillis: now - 301_000 }), 401, "TIMESTAMP_INVALID")
      // A minute past the window: the server's clock moves on while a loaded CI machine carries the request.
      expectRefusal(yield* call({ nowMillis: Date.now() + 360_000 }), 401, "TIMESTAMP_INVALID")
      assert.strictEqual((yield* call({ nowMillis: now - 290_000 })).status, 200)
      for (const timestamp of [`${Math.floor(now / 1000)}.5`, new Date(now).toISOString(), String(now)]) {
        expectRefusal(yield* call({ headers: { "x-federation-timestamp": timestamp } }), 401, "TIMESTAMP_INVALID")
      }
      expectRefusal(yield* call({ nonce: "1234567" }), 401, "SIGNATURE_INVALID")
      expectRefusal(yield* call({ nonce: "n".repeat(129) }), 401, "SIGNATURE_INVALID")
      assert.strictEqual((yield* call({ nonce: "n".repeat(128) })).status, 200)
      assert.strictEqual((yield* call({ nonce: randomUUID().slice(0, 8) })).status, 200)
      expectRefusal(yield* call({ headers: { "x-federation-signature": "" } }), 401, "SIGNATURE_INVALID")
      expectRefusal(yield* call({ headers: { "x-federation-signature": "zz" } }), 401, "SIGNATURE_INVALID")
      expectRefusal(
        yield* call({ bearer: true, headers: { "x-federation-platform-id": another.prefix } }),
        401,
        "INVALID_API_KEY"
      )
      expectRefusal(yield* call({ headers: { "x-federation-platform-id": "tbk_nothing00" } }), 401, "INVALID_API_KEY")
    }))

  it.effect("a replayed nonce is 409 REPLAY_DETECTED, per key; a refused signature does not use the nonce up", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ signing: true })
      const { key: another } = yield* federatedKey({ signing: true })
      const nonce = randomUUID()
      const bad = yield* signedCall({ key, method: "POST", path: TEST, nonce, secret: "tbs_wrong" })
      expectRefusal(bad, 401, "SIGNATURE_INVALID")
      assert.strictEqual((yield* signedCall({ key, method: "POST", path: TEST, nonce })).status, 200)
      const replay = yield* signedCall({ key, method: "POST", path: TEST, nonce })
      expectRefusal(replay, 409, "REPLAY_DETECTED")
      assert.strictEqual((yield* signedCall({ key: another, method: "POST", path: TEST, nonce })).status, 200)
    }))

  it.effect("the signature covers the body, the method, the path and the query exactly as sent", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ signing: true })
      const body = JSON.stringify({ id: "evt_1", event: "test" })
      const tampered = yield* signedCall({
        key,
        method: "POST",
        path: TEST,
        body: body.replace("1", "2"),
        signedBody: body
      })
      expectRefusal(tampered, 401, "SIGNATURE_INVALID")
      // Whitespace is part of the body as sent.
      const spaced = yield* signedCall({ key, method: "POST", path: TEST, body: `${body} `, signedBody: body })
      expectRefusal(spaced, 401, "SIGNATURE_INVALID")
      assert.strictEqual((yield* signedCall({ key, method: "POST", path: TEST, body: ` ${body}\n` })).status, 200)

      const path = `${PROBE_LISTINGS}?q=b&q2=a%20b`
      assert.strictEqual((yield* signedCall({ key, method: "GET", path })).status, 200)
      const query = yield* signedCall({ key, method: "GET", path: `${PROBE_LISTINGS}?q=c&q2=a%20b`, signedPath: path })
      expectRefusal(query, 401, "SIGNATURE_INVALID")
      const reordered = yield* signedCall({
        key,
        method: "GET",
        path: `${PROBE_LISTINGS}?q2=a%20b&q=b`,
        signedPath: path
      })
      expectRefusal(reordered, 401, "SIGNATURE_INVALID")
      const noQuery = yield* signedCall({ key, method: "GET", path: PROBE_LISTINGS, signedPath: path })
      expectRefusal(noQuery, 401, "SIGNATURE_INVALID")
      const otherPath = yield* signedCall({ key, method: "GET", path: PROBE_LISTINGS, signedPath: PROBE_MEMBERS })
      expectRefusal(otherPath, 401, "SIGNATURE_INVALID")
    }))

  it.effect("a signed body the edge does not keep as text (not JSON, +json, form or text) is refused, not left hanging", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      yield* federationOn(tenant)
      const partner = yield* makePartner(tenant)
      const key = yield* makeApiKey(tenant, { scopes: ["reviews:write"], partnerId: partner.id, signing: true })
      const body = JSON.stringify({ rating: 3 })
      const send = (contentType: string) => {
        const headers = signedHeaders({
          secret: key.signingSecret!,
          platformId: key.prefix,
          method: "POST",
          path: PROBE_REVIEWS,
          body,
          nonce: randomUUID(),
          nowMillis: Date.now()
        })
        return Effect.flatMap(HttpClient.HttpClient, (client) =>
          client.execute(
            HttpClientRequest.post(PROBE_REVIEWS).pipe(
              HttpClientRequest.setHeaders(headers),
              HttpClientRequest.bodyText(body, contentType)
            )
          )).pipe(
            Effect.flatMap((res) => Effect.map(res.json, (json) => ({ status: res.status, body: json }))),
            Effect.timeout("5 seconds"),
            Effect.scoped,
            Effect.orDie
          )
      }
      expectRefusal(yield* send("application/octet-stream"), 401, "SIGNATURE_INVALID")
      expectRefusal(yield* send("application/x-msgpack"), 401, "SIGNATURE_INVALID")
      assert.strictEqual((yield* send("application/json; charset=utf-8")).status, 201)
      // A structured +json type (JSON:API, decisions D16) is JSON: kept as text, so its signature holds.
      assert.strictEqual((yield* send("application/vnd.api+json")).status, 201)
    }))

  it.effect("per-key limit: X-RateLimit-* from the key's limit, 429 with Retry-After past it; checked after the scope", () =>
    Effect.gen(function*() {
      yield* awayFromMinuteEnd
      const { key } = yield* federatedKey({ rateLimitPerMinute: 3 })
      const ip = fromIp(randomIp())
      const resetAt = String(Math.ceil((Math.floor(Date.now() / 60_000) + 1) * 60))
      for (const remaining of ["2", "1", "0"]) {
        const res = yield* federationCall("GET", PROBE_LISTINGS, { key, headers: ip })
        assert.strictEqual(res.status, 200)
        assert.deepStrictEqual(
          [res.headers["x-ratelimit-limit"], res.headers["x-ratelimit-remaining"], res.headers["x-ratelimit-reset"]],
          ["3", remaining, resetAt]
        )
      }
      const limited = yield* federationCall("GET", PROBE_LISTINGS, { key, headers: ip })
      expectRefusal(limited, 429, "RATE_LIMITED")
      assert.deepStrictEqual([limited.headers["x-ratelimit-limit"], limited.headers["x-ratelimit-remaining"]], [
        "3",
        "0"
      ])
      const retryAfter = Number(limited.headers["retry-after"])
      assert.isTrue(retryAfter >= 1 && retryAfter <= 60, String(retryAfter))
      // The scope is checked before the limit.
      expectRefusal(yield* federationCall("GET", PROBE_MEMBERS, { key, headers: ip }), 403, "PERMISSION_DENIED")
      // Limits are per key.
      const { key: fresh } = yield* federatedKey({ rateLimitPerMinute: 7 })
      const other = yield* federationCall("GET", PROBE_LISTINGS, { key: fresh, headers: ip })
      assert.deepStrictEqual([other.status, other.headers["x-ratelimit-remaining"]], [200, "6"])
    }))

  it.effect("federation reads are limited to 60 per minute per IP, without headers of their own; writes are not", () =>
    Effect.gen(function*() {
      yield* awayFromMinuteEnd
      const { key } = yield* federatedKey({ rateLimitPerMinute: 1000, signing: true })
      const ip = fromIp(randomIp())
      for (let i = 0; i < 60; i++) {
        assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key, sign: true, headers: ip })).status, 200)
      }
      const limited = yield* federationCall("GET", PROBE_LISTINGS, { key, sign: true, headers: ip })
      expectRefusal(limited, 429, "RATE_LIMITED")
      assert.isDefined(limited.headers["retry-after"])
      assert.strictEqual(limited.headers["x-ratelimit-limit"], "1000")
      const post = yield* federationCall("POST", TEST, { key, sign: true, body: {}, headers: ip })
      assert.strictEqual(post.status, 200)
      const elsewhere = yield* federationCall("GET", PROBE_LISTINGS, { key, sign: true, headers: fromIp(randomIp()) })
      assert.strictEqual(elsewhere.status, 200)
    }))

  it.effect("the platform switch comes first, and its change is seen within SWITCHES_TTL", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey()
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key })).status, 200)
      yield* setPlatformFederation(false)
      yield* afterSwitchesTtl
      const off = yield* federationCall("GET", PROBE_LISTINGS, { key })
      expectRefusal(off, 503, "FEDERATION_DISABLED")
      assert.strictEqual(off.headers["retry-after"], "3600")
      // Before credentials: nothing presented, or a bad key, still hears that federation is off.
      expectRefusal(yield* rawRequest("GET", PROBE_LISTINGS), 503, "FEDERATION_DISABLED")
      const bad = yield* rawRequest("GET", PROBE_LISTINGS, { headers: { authorization: "Bearer tbk_bad" } })
      expectRefusal(bad, 503, "FEDERATION_DISABLED")
      yield* setPlatformFederation(true)
      yield* afterSwitchesTtl
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key })).status, 200)
      yield* setToggles({ id: key.tenantId }, { listings: false })
      yield* afterSwitchesTtl
      expectRefusal(yield* federationCall("GET", PROBE_LISTINGS, { key }), 503, "FEDERATION_DISABLED")
    }))
})

/** Counters are per clock minute: a test that counts calls starts early enough in one. */
const awayFromMinuteEnd = Effect.suspend(() => {
  const into = Date.now() % 60_000
  return into > 50_000 ? Effect.sleep(Duration.millis(60_000 - into + 200)) : Effect.void
})
