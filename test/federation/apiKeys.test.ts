import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { ApiKeyId, type CreateApiKey } from "@timebank/domain"
import { ApiKeyStore, hashApiKey } from "@timebank/server"
import { DateTime, Effect, Option } from "effect"
import { errorsOf } from "../fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "../fixtures/client.js"
import { actor, community, makeActor } from "../fixtures/community.js"
import { federationCall, federationOn, makeApiKey, makePartner, type TestApiKey } from "../fixtures/federation.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { makeSuperAdmin } from "../fixtures/users.js"

const KEYS = "/api/v2/admin/federation/api-keys"
const json = (body: unknown) => JSON.stringify(body)
const store = Effect.provide(ApiKeyStore, ApiKeyStore.Default)
const stored = (apiKey: string) => Effect.flatMap(store, (keys) => keys.byApiKey(apiKey))
const keyId = (id: number) => ({ id: ApiKeyId.make(id) })

interface KeyBody {
  readonly id: number
  readonly name: string
  readonly key_prefix: string
  readonly api_key?: string
  readonly signing_secret?: string
  readonly scopes: ReadonlyArray<string>
  readonly rate_limit_per_minute: number
  readonly signing: boolean
  readonly status: string
  readonly partner_id: number | null
  readonly expires_at: string | null
  readonly last_used_at: string | null
  readonly revoked_at: string | null
  readonly created_at: string
}
const keyOf = (body: unknown) => (body as { data: KeyBody }).data

/** How many keys the tenant has, whatever their state (the admin routes' own count is what is under test). */
const keyCount = (tenant: { readonly id: number }) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const [row] = yield* sql<{ n: number }>`
      SELECT count(*)::int AS n FROM federation_api_keys WHERE tenant_id = ${tenant.id}`
    return row!.n
  }).pipe(Effect.orDie)

const tokenCommunity = community({ signIn: "token" })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation API keys", (it) => {
  it.effect("the kit's makeApiKey and makePartner write rows the key store reads back", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const partner = yield* makePartner(c.tenant, { status: "active", settings: { credit_limit: 5 } })
      const key = yield* makeApiKey(c.tenant, {
        scopes: ["listings:read", "reviews:write"],
        partnerId: partner.id,
        signing: true,
        rateLimitPerMinute: 7
      })
      const keys = yield* store
      const found = Option.getOrThrow(yield* keys.byApiKey(key.apiKey))
      assert.deepStrictEqual(
        { ...found, signingSecret: Option.getOrUndefined(found.signingSecret) },
        {
          id: key.id,
          tenantId: c.tenant.id,
          partnerId: partner.id,
          partnerStatus: "active",
          keyPrefix: key.prefix,
          scopes: ["listings:read", "reviews:write"],
          rateLimitPerMinute: 7,
          signingSecret: key.signingSecret,
          usable: true
        }
      )
      assert.strictEqual(Option.getOrThrow(yield* keys.byPrefix(key.prefix)).id, key.id)
      const revoked = yield* makeApiKey(c.tenant, { status: "revoked" })
      assert.isFalse(Option.getOrThrow(yield* keys.byApiKey(revoked.apiKey)).usable)
      const expired = yield* makeApiKey(c.tenant, { expiresAt: new Date(Date.now() - 1000) })
      assert.isFalse(Option.getOrThrow(yield* keys.byApiKey(expired.apiKey)).usable)
      assert.isTrue(Option.isNone(yield* keys.byApiKey(`tbk_${"0".repeat(64)}`)))
      // The partner's settings are a JSON object (not a JSON string), its credential keys a text[].
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ kind: string; limit: string; keys: ReadonlyArray<string> }>`
        SELECT jsonb_typeof(settings) AS kind, settings->>'credit_limit' AS limit, credential_keys AS keys
        FROM federation_partners WHERE id = ${partner.id}`
      assert.deepStrictEqual(row, { kind: "object", limit: "5", keys: [] })
      const withCredentials = yield* makePartner(c.tenant, { credentials: { api_key: "k", signing_secret: "s" } })
      const [credentialRow] = yield* sql<{ keys: ReadonlyArray<string> }>`
        SELECT credential_keys AS keys FROM federation_partners WHERE id = ${withCredentials.id}`
      assert.deepStrictEqual(credentialRow?.keys, ["api_key", "signing_secret"])
    }))

  it.effect("POST creates an active key shown once: tbk_ + 64 hex, stored only as its SHA-256", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      // Raw: the exact wire body (no `signing_secret` at all without signing). Federation is off (the default):
      // the admin routes work whatever the switches say.
      const res = yield* rawRequest("POST", KEYS, {
        headers: c.adminHeaders,
        body: json({ name: "  Riverside bank ", scopes: ["listings:read"] })
      })
      assert.strictEqual(res.status, 201, res.text)
      assert.deepStrictEqual((res.body as { meta: unknown }).meta, {})
      const key = keyOf(res.body)
      assert.match(key.api_key!, /^tbk_[0-9a-f]{64}$/)
      assert.deepStrictEqual(
        Object.keys(key).sort(),
        [
          "api_key",
          "created_at",
          "expires_at",
          "id",
          "key_prefix",
          "last_used_at",
          "name",
          "partner_id",
          "rate_limit_per_minute",
          "revoked_at",
          "scopes",
          "signing",
          "status"
        ]
      )
      assert.deepInclude(key, {
        name: "Riverside bank",
        key_prefix: key.api_key!.slice(0, 12),
        scopes: ["listings:read"],
        rate_limit_per_minute: 60,
        signing: false,
        status: "active",
        partner_id: null,
        expires_at: null,
        last_used_at: null,
        revoked_at: null
      })
      assert.match(key.created_at, /Z$/)

      // Authentication finds it by key and by prefix; the database holds the hash, never the key.
      const found = Option.getOrThrow(yield* stored(key.api_key!))
      assert.deepInclude(found, { id: key.id, tenantId: c.tenant.id, usable: true, rateLimitPerMinute: 60 })
      assert.isTrue(Option.isNone(found.signingSecret))
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ key_hash: string; whole: string; created_by: string }>`
        SELECT key_hash, to_jsonb(k)::text AS whole, created_by FROM federation_api_keys k WHERE id = ${key.id}`
      assert.strictEqual(row!.key_hash, hashApiKey(key.api_key!))
      assert.notInclude(row!.whole, key.api_key!.slice(12))
      assert.strictEqual(Number(row!.created_by), c.admin.id)
    }))

  it.effect("POST with signing, a partner, a limit and an expiry; repeated scopes count once", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const partner = yield* makePartner(c.tenant, { status: "pending" })
      const expires = new Date(Date.now() + 86_400_000)
      expires.setUTCMilliseconds(0)
      // An offset other than Z is taken and answered in UTC (D2).
      const offset = DateTime.formatIsoOffset(DateTime.unsafeMakeZoned(expires, { timeZone: "+02:00" }))
      const res = yield* rawRequest("POST", KEYS, {
        headers: c.adminHeaders,
        body: json({
          name: "Signed",
          scopes: ["reviews:write", "transactions:write", "reviews:write"],
          partner_id: partner.id,
          rate_limit_per_minute: 10_000,
          signing: true,
          expires_at: offset
        })
      })
      assert.strictEqual(res.status, 201, res.text)
      const key = keyOf(res.body)
      assert.match(key.signing_secret!, /^tbs_[0-9a-f]{64}$/)
      assert.deepInclude(key, {
        scopes: ["reviews:write", "transactions:write"],
        partner_id: partner.id,
        rate_limit_per_minute: 10_000,
        signing: true,
        expires_at: expires.toISOString()
      })
      const found = Option.getOrThrow(yield* stored(key.api_key!))
      assert.strictEqual(Option.getOrThrow(found.signingSecret), key.signing_secret)
      assert.deepInclude(found, { partnerId: partner.id, partnerStatus: "pending", rateLimitPerMinute: 10_000 })
      // The secret is sealed at rest.
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ signing_secret: string }>`
        SELECT signing_secret FROM federation_api_keys WHERE id = ${key.id}`
      assert.notInclude(row!.signing_secret, key.signing_secret!.slice(4))

      const typed = yield* c.admin.client.adminFederationKeys.create({
        payload: { name: "Minimal", scopes: ["members:read"], rate_limit_per_minute: 1, signing: false },
        withResponse: true
      }).pipe(expectStatus(201))
      assert.strictEqual(typed.data.signing_secret, undefined)
      assert.strictEqual(typed.data.rate_limit_per_minute, 1)
      assert.notStrictEqual(typed.data.key_prefix, key.key_prefix)
    }))

  it.effect("bad input is 422 per field (scopes.<n>, partner_id, expires_at, ...) and stores nothing", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const other = yield* tokenCommunity
      const foreignPartner = yield* makePartner(other.tenant)
      const deletedPartner = yield* makePartner(c.tenant)
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE federation_partners SET deleted_at = now() WHERE id = ${deletedPartner.id}`
      const ok = { name: "k", scopes: ["listings:read"] }
      const past = new Date(Date.now() - 60_000).toISOString()
      // Bodies the contract cannot express go raw.
      const cases: Array<[unknown, Array<string>]> = [
        [{ ...ok, scopes: ["listings:read", "listings:write"] }, ["scopes.1"]],
        [{ ...ok, scopes: ["nope", "listings:read", "admin"] }, ["scopes.0", "scopes.2"]],
        [{ ...ok, scopes: [] }, ["scopes"]],
        [{ ...ok, scopes: "listings:read" }, ["scopes"]],
        [{ scopes: ["listings:read"] }, ["name"]],
        [{ ...ok, name: "   " }, ["name"]],
        [{ ...ok, name: "x".repeat(101) }, ["name"]],
        [{ ...ok, rate_limit_per_minute: 0 }, ["rate_limit_per_minute"]],
        [{ ...ok, rate_limit_per_minute: 10_001 }, ["rate_limit_per_minute"]],
        [{ ...ok, rate_limit_per_minute: 1.5 }, ["rate_limit_per_minute"]],
        [{ ...ok, signing: "yes" }, ["signing"]],
        [{ ...ok, expires_at: "tomorrow" }, ["expires_at"]],
        [{ ...ok, expires_at: past }, ["expires_at"]],
        [{ ...ok, partner_id: foreignPartner.id }, ["partner_id"]],
        [{ ...ok, partner_id: deletedPartner.id }, ["partner_id"]],
        [{ ...ok, partner_id: 999_999_999 }, ["partner_id"]],
        [{ ...ok, partner_id: -3 }, ["partner_id"]],
        [{ ...ok, partner_id: foreignPartner.id, expires_at: past }, ["partner_id", "expires_at"]],
        [{ ...ok, signing_required: true }, ["signing_required"]]
      ]
      for (const [body, fields] of cases) {
        const res = yield* rawRequest("POST", KEYS, { headers: c.adminHeaders, body: json(body) })
        assert.strictEqual(res.status, 422, `${json(body)}: ${res.text}`)
        for (const e of errorsOf(res.body)) assert.strictEqual(e.code, "VALIDATION_ERROR")
        assert.sameMembers(errorsOf(res.body).map((e) => e.field), fields, json(body))
      }
      assert.strictEqual(yield* keyCount(c.tenant), 0)
    }))

  it.effect("GET lists the tenant's keys newest first, revoked ones included, without secrets; offset pages", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const neighbour = yield* tokenCommunity
      yield* makeApiKey(neighbour.tenant)
      const create = (name: string, extra: Partial<CreateApiKey> = {}) =>
        c.admin.client.adminFederationKeys.create({ payload: { name, scopes: ["events:read"], ...extra } })
      const first = (yield* create("first", { signing: true })).data
      const second = (yield* create("second")).data
      const third = (yield* create("third")).data
      yield* c.admin.client.adminFederationKeys.revoke({ path: keyId(second.id) })
      // Authentication notes each use; the list shows it.
      yield* Effect.flatMap(store, (keys) => keys.touch(first.id))

      const res = yield* rawRequest("GET", KEYS, { headers: c.adminHeaders })
      assert.strictEqual(res.status, 200, res.text)
      const page = res.body as { data: Array<KeyBody>; meta: unknown }
      assert.deepStrictEqual(page.data.map((k) => k.name), ["third", "second", "first"])
      assert.deepStrictEqual(page.meta, { current_page: 1, per_page: 20, total: 3, total_pages: 1, has_more: false })
      for (const k of page.data) {
        assert.notProperty(k, "api_key")
        assert.notProperty(k, "signing_secret")
      }
      assert.notInclude(res.text, first.api_key)
      assert.notInclude(res.text, first.signing_secret!)
      const [listedThird, listedSecond, listedFirst] = page.data
      assert.deepInclude(listedThird, { id: third.id, status: "active", revoked_at: null, last_used_at: null })
      assert.strictEqual(listedSecond!.status, "revoked")
      assert.isString(listedSecond!.revoked_at)
      assert.deepInclude(listedFirst, { signing: true, key_prefix: first.key_prefix })
      assert.isString(listedFirst!.last_used_at)

      const active = yield* c.admin.client.adminFederationKeys.list({ urlParams: { status: "active" } })
      assert.deepStrictEqual(active.data.map((k) => k.name), ["third", "first"])
      const revoked = yield* c.admin.client.adminFederationKeys.list({ urlParams: { status: "revoked" } })
      assert.deepStrictEqual(revoked.data.map((k) => k.id), [second.id])
      const paged = yield* c.admin.client.adminFederationKeys.list({ urlParams: { page: 2, per_page: 2 } })
      assert.deepStrictEqual(paged.data.map((k) => k.name), ["first"])
      assert.deepStrictEqual(paged.meta, { current_page: 2, per_page: 2, total: 3, total_pages: 2, has_more: false })
      for (const bad of ["per_page=101", "per_page=0", "page=0", "status=expired"]) {
        const refused = yield* rawRequest("GET", `${KEYS}?${bad}`, { headers: c.adminHeaders })
        assert.strictEqual(refused.status, 422, `${bad}: ${refused.text}`)
      }

      // One key by id; another tenant's key or an unknown id is 404.
      const one = yield* c.admin.client.adminFederationKeys.get({ path: keyId(first.id), withResponse: true }).pipe(
        expectStatus(200)
      )
      assert.deepInclude(one.data, { id: first.id, name: "first", signing: true, status: "active" })
      assert.notProperty(one.data, "api_key")
      yield* neighbour.admin.client.adminFederationKeys.get({ path: keyId(first.id) }).pipe(
        expectError(404, "NOT_FOUND")
      )
      yield* c.admin.client.adminFederationKeys.get({ path: keyId(999_999_999) }).pipe(expectError(404, "NOT_FOUND"))
      const oddId = yield* rawRequest("GET", `${KEYS}/abc`, { headers: c.adminHeaders })
      assert.strictEqual(oddId.status, 404)
      // The neighbour's list holds only its own key.
      assert.strictEqual((yield* neighbour.admin.client.adminFederationKeys.list({ urlParams: {} })).meta.total, 1)
    }))

  it.effect("revoke answers the key as revoked and takes effect at once; again is 409; another tenant's is 404", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const neighbour = yield* tokenCommunity
      const created = (yield* c.admin.client.adminFederationKeys.create({
        payload: { name: "to revoke", scopes: ["groups:read"] }
      })).data
      assert.isTrue(Option.getOrThrow(yield* stored(created.api_key)).usable)

      // Another community's admin cannot reach it, and it stays usable.
      yield* neighbour.admin.client.adminFederationKeys.revoke({ path: keyId(created.id) }).pipe(
        expectError(404, "NOT_FOUND")
      )
      assert.isTrue(Option.getOrThrow(yield* stored(created.api_key)).usable)

      const res = yield* rawRequest("POST", `${KEYS}/${created.id}/revoke`, { headers: c.adminHeaders })
      assert.strictEqual(res.status, 200, res.text)
      const revoked = keyOf(res.body)
      assert.deepInclude(revoked, {
        id: created.id,
        name: "to revoke",
        status: "revoked",
        key_prefix: created.key_prefix
      })
      assert.isString(revoked.revoked_at)
      assert.notProperty(revoked, "api_key")
      // The key store (uncached) refuses it on the next read.
      assert.isFalse(Option.getOrThrow(yield* stored(created.api_key)).usable)

      const again = yield* c.admin.client.adminFederationKeys.revoke({ path: keyId(created.id) }).pipe(
        expectError(409, "ALREADY_REVOKED")
      )
      assert.isString(again.message)
      yield* c.admin.client.adminFederationKeys.revoke({ path: keyId(999_999_999) }).pipe(
        expectError(404, "NOT_FOUND")
      )
      const oddId = yield* rawRequest("POST", `${KEYS}/0/revoke`, { headers: c.adminHeaders })
      assert.strictEqual(oddId.status, 404)
      const listed = yield* c.admin.client.adminFederationKeys.get({ path: keyId(created.id) })
      assert.strictEqual(listed.data.status, "revoked")
    }))

  it.effect("no token is 401, members and brokers 403, another tenant's admin 401; super-admins may", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      const other = yield* tokenCommunity
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const foreign = yield* apiClient({ ...other.admin.headers, ...tenantHeaders(c.tenant) })
      const existing = yield* makeApiKey(c.tenant, { scopes: ["listings:read"] })
      const path = keyId(existing.id)
      const requests: ReadonlyArray<(client: ApiClient) => Effect.Effect<unknown, unknown>> = [
        (client) => client.adminFederationKeys.list({ urlParams: {} }),
        (client) => client.adminFederationKeys.create({ payload: { name: "x", scopes: ["listings:read"] } }),
        (client) => client.adminFederationKeys.get({ path }),
        (client) => client.adminFederationKeys.revoke({ path })
      ]
      for (const request of requests) {
        yield* request(c.visitor.client).pipe(expectError(401, "AUTH_REQUIRED"))
        for (const { client } of [c.member, broker]) yield* request(client).pipe(expectError(403, "FORBIDDEN"))
        yield* request(foreign).pipe(expectError(401, "AUTH_REQUIRED"))
      }
      assert.strictEqual(yield* keyCount(c.tenant), 1)
      assert.isTrue(Option.getOrThrow(yield* stored(existing.apiKey)).usable)

      // A platform super-admin visiting the community manages its keys.
      const visiting = yield* actor(yield* makeSuperAdmin(), "token")
      const client = yield* apiClient({ ...visiting.headers, ...tenantHeaders(c.tenant) })
      const made = yield* client.adminFederationKeys.create({
        payload: { name: "by operator", scopes: ["listings:read"] },
        withResponse: true
      }).pipe(expectStatus(201))
      assert.strictEqual(Option.getOrThrow(yield* stored(made.data.api_key)).tenantId, c.tenant.id)
      yield* client.adminFederationKeys.revoke({ path })
      assert.isFalse(Option.getOrThrow(yield* stored(existing.apiKey)).usable)
    }))

  it.effect("a key made over the admin route works on a federation route, and fails there at once once revoked", () =>
    Effect.gen(function*() {
      const c = yield* tokenCommunity
      yield* federationOn(c.tenant)
      const made = (yield* c.admin.client.adminFederationKeys.create({
        payload: { name: "Partner hub", scopes: ["listings:read"], signing: true }
      })).data
      const key: TestApiKey = {
        id: made.id,
        tenantId: c.tenant.id,
        apiKey: made.api_key,
        prefix: made.key_prefix,
        signingSecret: made.signing_secret
      }
      const headers = fromIp(randomIp())
      const call = federationCall("POST", "/api/v1/federation/webhooks/test", { key, body: {}, sign: true, headers })
      const before = yield* call
      assert.strictEqual(before.status, 200, before.text)
      assert.deepStrictEqual(before.body, { data: { ok: true }, meta: {} })

      yield* c.admin.client.adminFederationKeys.revoke({ path: keyId(made.id) })
      // No wait: the key store is read uncached on every request.
      const after = yield* call
      assert.strictEqual(after.status, 401, after.text)
      assert.strictEqual(errorsOf(after.body)[0]?.code, "INVALID_API_KEY")
      const bearer = yield* federationCall("GET", "/api/v1/federation/listings", { key, headers })
      assert.strictEqual(bearer.status, 401, bearer.text)
      assert.strictEqual(errorsOf(bearer.body)[0]?.code, "INVALID_API_KEY")
    }))
})
