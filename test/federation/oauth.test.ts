import { HttpClient, HttpClientRequest } from "@effect/platform"
import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { SecretBox, SWITCHES_TTL } from "@timebank/server"
import { Duration, Effect } from "effect"
import { decodeJwt, SignJWT } from "jose"
import {
  federationCall,
  federationOn,
  makeApiKey,
  makePartner,
  setPlatformFederation,
  setWhitelisted,
  type TestApiKey
} from "../fixtures/federation.js"
import { makeTenant } from "../fixtures/tenants.js"
import { rawRequest } from "../fixtures/TestApp.js"
import { FederationProbeApp, PROBE_LISTINGS, PROBE_MEMBERS } from "./federationProbe.js"

const TOKEN = "/api/v1/federation/oauth/token"

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString("base64")}`

/** A form POST to the token endpoint (raw: its bodies are RFC 6749's, and the test checks the wire). */
const tokenCall = (form: string, headers: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const request = HttpClientRequest.post(TOKEN).pipe(
      HttpClientRequest.setHeaders(headers),
      HttpClientRequest.bodyText(form, "application/x-www-form-urlencoded")
    )
    const response = yield* client.execute(request)
    const text = yield* response.text
    return {
      status: response.status,
      headers: response.headers,
      body: text === "" ? undefined : JSON.parse(text) as unknown
    }
  }).pipe(Effect.scoped, Effect.orDie)

const tokenFor = (key: TestApiKey, scope?: string) =>
  tokenCall(
    `grant_type=client_credentials${scope === undefined ? "" : `&scope=${encodeURIComponent(scope)}`}`,
    { authorization: basic(key.prefix, key.apiKey) }
  )

const accessToken = (res: { readonly body: unknown }) => (res.body as { access_token: string }).access_token

const withBearer = (token: string, path = PROBE_LISTINGS, headers: Record<string, string> = {}) =>
  rawRequest("GET", path, { headers: { authorization: `Bearer ${token}`, ...headers } })

const errorCode = (body: unknown) => (body as { errors: ReadonlyArray<{ code: string }> }).errors[0]?.code

const federatedKey = (options: Parameters<typeof makeApiKey>[1] = {}) =>
  Effect.gen(function*() {
    const tenant = yield* makeTenant()
    yield* federationOn(tenant)
    return { tenant, key: yield* makeApiKey(tenant, options) }
  })

const jwtSecret = Effect.map(SecretBox, (box) => new Uint8Array(box.derive("federation-jwt"))).pipe(
  Effect.provide(SecretBox.Default),
  Effect.orDie
)

layer(FederationProbeApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation OAuth", (it) => {
  it.effect("client credentials: a one-hour HS256 JWT at the top level, no-store, with D13's claims", () =>
    Effect.gen(function*() {
      const { tenant } = yield* federatedKey()
      const partner = yield* makePartner(tenant)
      const key = yield* makeApiKey(tenant, { scopes: ["listings:read", "members:read"], partnerId: partner.id })
      const res = yield* tokenFor(key)
      assert.strictEqual(res.status, 200)
      assert.strictEqual(res.headers["cache-control"], "no-store")
      const body = res.body as Record<string, unknown>
      assert.deepStrictEqual(Object.keys(body).sort(), ["access_token", "expires_in", "scope", "token_type"])
      assert.deepInclude(body, { token_type: "Bearer", expires_in: 3600, scope: "listings:read members:read" })
      const claims = decodeJwt(accessToken(res))
      assert.deepInclude(claims, {
        aud: "timebank-federation",
        sub: String(partner.id),
        key_id: String(key.id),
        tenant_id: String(tenant.id),
        scope: "listings:read members:read"
      })
      assert.isString(claims.iss)
      assert.isString(claims.jti)
      assert.strictEqual(claims.exp! - claims.iat!, 3600)
      assert.isTrue(Math.abs(claims.iat! - Date.now() / 1000) < 10)
      // Without a partner the subject is the key.
      const { key: unbound } = yield* federatedKey()
      assert.strictEqual(decodeJwt(accessToken(yield* tokenFor(unbound))).sub, String(unbound.id))
    }))

  it.effect("the token authenticates federation calls with its (narrowed) scope; its key's limit counts them", () =>
    Effect.gen(function*() {
      const { key, tenant } = yield* federatedKey({ scopes: ["listings:read", "members:read"], rateLimitPerMinute: 3 })
      const narrowed = yield* tokenFor(key, "listings:read")
      assert.strictEqual((narrowed.body as { scope: string }).scope, "listings:read")
      const token = accessToken(narrowed)
      const ok = yield* withBearer(token)
      assert.strictEqual(ok.status, 200)
      assert.deepStrictEqual((ok.body as { data: unknown }).data, {
        key_id: key.id,
        tenant_id: tenant.id,
        partner_id: null,
        scopes: ["listings:read"],
        method: "jwt"
      })
      // Escalation at a route: the key has members:read, the token does not.
      const escalated = yield* withBearer(token, PROBE_MEMBERS)
      assert.deepStrictEqual([escalated.status, errorCode(escalated.body)], [403, "PERMISSION_DENIED"])
      // Token calls and key calls share the key's budget (3 per minute): 1 above, 1 here, 1 by key, then 429.
      assert.strictEqual((yield* withBearer(token)).status, 200)
      assert.strictEqual((yield* federationCall("GET", PROBE_LISTINGS, { key })).status, 200)
      const limited = yield* withBearer(token)
      assert.deepStrictEqual([limited.status, errorCode(limited.body)], [429, "RATE_LIMITED"])
    }))

  it.effect("a changed byte, alg none, another secret, expiry, and a revoked or expired key are 401 INVALID_TOKEN", () =>
    Effect.gen(function*() {
      const { key, tenant } = yield* federatedKey()
      const token = accessToken(yield* tokenFor(key))
      const [header, payload, signature] = token.split(".") as [string, string, string]
      const flip = (s: string, at: number) => s.slice(0, at) + (s[at] === "A" ? "B" : "A") + s.slice(at + 1)
      const claims = decodeJwt(token)
      const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`
      const secret = yield* jwtSecret
      const sign = (over: Record<string, unknown>, key: Uint8Array = secret) =>
        Effect.promise(() =>
          new SignJWT({ ...claims, ...over }).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key)
        )
      const expired = yield* sign({ iat: claims.iat! - 7200, exp: claims.iat! - 3600 })
      const foreign = yield* sign({}, new Uint8Array(32).fill(7))
      const otherAudience = yield* sign({ aud: "someone-else" })
      const wrongTenant = yield* sign({ tenant_id: String(tenant.id + 1000) })
      for (
        const bad of [
          `${header}.${flip(payload, 10)}.${signature}`,
          `${header}.${payload}.${flip(signature, 5)}`,
          none,
          expired,
          foreign,
          otherAudience,
          wrongTenant,
          "a.b.c"
        ]
      ) {
        const res = yield* withBearer(bad)
        assert.deepStrictEqual([res.status, errorCode(res.body)], [401, "INVALID_TOKEN"], bad)
      }
      assert.strictEqual((yield* withBearer(yield* sign({ jti: "re-signed" }))).status, 200)

      const sql = yield* SqlClient.SqlClient
      assert.strictEqual((yield* withBearer(token)).status, 200)
      yield* sql`UPDATE federation_api_keys SET status = 'revoked', revoked_at = now() WHERE id = ${key.id}`
      const revoked = yield* withBearer(token)
      assert.deepStrictEqual([revoked.status, errorCode(revoked.body)], [401, "INVALID_TOKEN"])

      const { key: expiring } = yield* federatedKey()
      const expiringToken = accessToken(yield* tokenFor(expiring))
      yield* sql`UPDATE federation_api_keys SET expires_at = now() - interval '1 second' WHERE id = ${expiring.id}`
      const gone = yield* withBearer(expiringToken)
      assert.deepStrictEqual([gone.status, errorCode(gone.body)], [401, "INVALID_TOKEN"])
    }))

  it.effect("a key that signs must sign its token calls too; the signature is checked with its secret", () =>
    Effect.gen(function*() {
      const { key } = yield* federatedKey({ signing: true })
      const token = accessToken(yield* tokenFor(key))
      const unsigned = yield* withBearer(token)
      assert.deepStrictEqual([unsigned.status, errorCode(unsigned.body)], [401, "SIGNATURE_REQUIRED"])
      const { signedHeaders } = yield* Effect.promise(() => import("@timebank/server"))
      const headers = signedHeaders({
        secret: key.signingSecret!,
        platformId: key.prefix,
        method: "GET",
        path: PROBE_LISTINGS,
        body: "",
        nonce: crypto.randomUUID(),
        nowMillis: Date.now()
      })
      const signed = yield* withBearer(token, PROBE_LISTINGS, headers)
      assert.deepStrictEqual([signed.status, (signed.body as { data: { method: string } }).data.method], [200, "jwt"])
    }))

  it.effect("RFC 6749 errors: invalid_request, unsupported_grant_type, invalid_scope (400), invalid_client (401)", () =>
    Effect.gen(function*() {
      const { key, tenant } = yield* federatedKey({ scopes: ["listings:read"] })
      const auth = { authorization: basic(key.prefix, key.apiKey) }
      const expectOAuth = (res: { status: number; body: unknown }, status: number, error: string) => {
        assert.strictEqual(res.status, status)
        const body = res.body as Record<string, unknown>
        assert.deepStrictEqual(Object.keys(body).sort(), ["error", "error_description"])
        assert.strictEqual(body["error"], error)
        assert.isString(body["error_description"])
      }
      expectOAuth(yield* tokenCall("scope=listings%3Aread", auth), 400, "invalid_request")
      expectOAuth(yield* tokenCall("", auth), 400, "invalid_request")
      expectOAuth(yield* tokenCall("grant_type=password", auth), 400, "unsupported_grant_type")
      expectOAuth(yield* tokenFor(key, "listings:read members:read"), 400, "invalid_scope")
      expectOAuth(yield* tokenFor(key, "everything"), 400, "invalid_scope")
      const form = "grant_type=client_credentials"
      const noClient = yield* tokenCall(form)
      expectOAuth(noClient, 401, "invalid_client")
      assert.include(noClient.headers["www-authenticate"], "Basic")
      expectOAuth(yield* tokenCall(form, { authorization: basic(key.prefix, `${key.apiKey}0`) }), 401, "invalid_client")
      const other = yield* makeApiKey(tenant)
      expectOAuth(yield* tokenCall(form, { authorization: basic(other.prefix, key.apiKey) }), 401, "invalid_client")
      expectOAuth(yield* tokenCall(form, { authorization: `Bearer ${key.apiKey}` }), 401, "invalid_client")
      const revoked = yield* makeApiKey(tenant, { status: "revoked" })
      expectOAuth(yield* tokenFor(revoked), 401, "invalid_client")
      const expired = yield* makeApiKey(tenant, { expiresAt: new Date(Date.now() - 1000) })
      expectOAuth(yield* tokenFor(expired), 401, "invalid_client")
      // What the edge guard or the form decoder refuses is RFC 6749's invalid_request too, never the D1 envelope.
      expectOAuth(yield* tokenCall("grant_type=client%00credentials", auth), 400, "invalid_request")
      expectOAuth(yield* tokenCall("grant_type=%ff", auth), 400, "invalid_request")
      expectOAuth(yield* tokenCall(`${form}&grant_type=client_credentials`, auth), 400, "invalid_request")
      // Repeated scopes are one; the granted scope is the key's order.
      const again = yield* tokenFor(key, "listings:read  listings:read")
      assert.deepStrictEqual([again.status, (again.body as { scope: string }).scope], [200, "listings:read"])
    }))

  it.effect("only the platform switch and the whitelist apply: 503 FEDERATION_DISABLED in the D1 envelope", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      yield* federationOn(tenant, [])
      const key = yield* makeApiKey(tenant)
      // Every toggle off: a token is still issued.
      assert.strictEqual((yield* tokenFor(key)).status, 200)
      yield* setWhitelisted(tenant, false)
      yield* Effect.sleep(Duration.sum(SWITCHES_TTL, Duration.millis(300)))
      const unlisted = yield* tokenFor(key)
      assert.deepStrictEqual([unlisted.status, errorCode(unlisted.body)], [503, "FEDERATION_DISABLED"])
      assert.strictEqual(unlisted.headers["retry-after"], "3600")
      yield* setPlatformFederation(false)
      yield* Effect.sleep(Duration.sum(SWITCHES_TTL, Duration.millis(300)))
      const off = yield* tokenCall("grant_type=client_credentials")
      assert.deepStrictEqual([off.status, errorCode(off.body)], [503, "FEDERATION_DISABLED"])
      yield* setPlatformFederation(true)
    }))
})
