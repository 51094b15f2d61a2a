import { assert, describe, it } from "@effect/vitest"
import { type FederationAccessPolicy, FederationDisabled, NO_TOGGLES, OAuthRequestRefused } from "@timebank/domain"
import {
  basicCredentials,
  canonicalString,
  grantOf,
  looksLikeFederationJwt,
  minuteWindow,
  narrowScopes,
  nonceWellFormed,
  parseTimestamp,
  permissionRefusal,
  presentedCredentials,
  signatureHolds,
  signCanonical,
  signedHeaders,
  switchesRefuse,
  tenantHeaderDisagrees,
  timestampInWindow
} from "@timebank/server"

// Vectors computed outside this code base, with OpenSSL:
//   printf 'POST\n/api/v1/federation/webhooks/test?a=1&b=2\n1700000000\nn0nce-abc-123\n{"id":"evt_1","event":"test"}' \
//     | openssl dgst -sha256 -hmac 'tbs_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef' -hex
//   printf 'GET\n/api/v1/federation/listings?per_page=5\n1700000300\n12345678\n' | openssl dgst -sha256 -hmac 'key' -hex
const SECRET = "tbs_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
const POST_VECTOR = "78771cf7f9634b81c6fd6e638ec1353e12198c882202900d585b242b9803f019"
const GET_VECTOR = "677c66d3467c4076d5f2496649cdbc7f25c2a0bc7b3441a2c5850471c4c5a7ff"

const post = {
  method: "POST",
  path: "/api/v1/federation/webhooks/test?a=1&b=2",
  timestamp: "1700000000",
  nonce: "n0nce-abc-123",
  body: "{\"id\":\"evt_1\",\"event\":\"test\"}"
}

describe("HMAC signature (D13)", () => {
  it("signs METHOD\\nPATH\\nTIMESTAMP\\nNONCE\\nBODY as OpenSSL does", () => {
    assert.strictEqual(
      canonicalString(post),
      "POST\n/api/v1/federation/webhooks/test?a=1&b=2\n1700000000\nn0nce-abc-123\n{\"id\":\"evt_1\",\"event\":\"test\"}"
    )
    assert.strictEqual(signCanonical(SECRET, canonicalString(post)), POST_VECTOR)
    const get = {
      method: "get",
      path: "/api/v1/federation/listings?per_page=5",
      timestamp: "1700000300",
      nonce: "12345678",
      body: ""
    }
    assert.strictEqual(signCanonical("key", canonicalString(get)), GET_VECTOR)
  })

  it("accepts the vector in any case and refuses any change of a part, the secret or the signature's form", () => {
    const canonical = canonicalString(post)
    assert.isTrue(signatureHolds(SECRET, canonical, POST_VECTOR))
    assert.isTrue(signatureHolds(SECRET, canonical, POST_VECTOR.toUpperCase()))
    for (
      const changed of [
        { method: "PUT" },
        { path: "/api/v1/federation/webhooks/test?b=2&a=1" },
        { timestamp: "1700000001" },
        { nonce: "n0nce-abc-124" },
        { body: `${post.body} ` }
      ]
    ) {
      assert.isFalse(
        signatureHolds(SECRET, canonicalString({ ...post, ...changed }), POST_VECTOR),
        JSON.stringify(changed)
      )
    }
    assert.isFalse(signatureHolds(`${SECRET}x`, canonical, POST_VECTOR))
    for (const bad of ["", POST_VECTOR.slice(1), `${POST_VECTOR}00`, `${POST_VECTOR.slice(2)}zz`]) {
      assert.isFalse(signatureHolds(SECRET, canonical, bad), bad)
    }
  })

  it("signedHeaders makes the four headers with unix seconds", () => {
    const headers = signedHeaders({ secret: SECRET, platformId: "tbk_01234567", nowMillis: 1_700_000_000_999, ...post })
    assert.deepStrictEqual(headers, {
      "x-federation-platform-id": "tbk_01234567",
      "x-federation-timestamp": "1700000000",
      "x-federation-nonce": "n0nce-abc-123",
      "x-federation-signature": POST_VECTOR
    })
  })

  it("timestamps are unix seconds within ±300 s", () => {
    assert.strictEqual(parseTimestamp("1700000000"), 1_700_000_000)
    for (
      const bad of ["", "-1", "+1700000000", "1700000000.5", "1.7e9", "0x10", "2023-11-14T22:13:20Z", " 1700000000"]
    ) {
      assert.isUndefined(parseTimestamp(bad), bad)
    }
    const now = 1_700_000_000_000
    assert.isTrue(timestampInWindow(1_700_000_300, now))
    assert.isTrue(timestampInWindow(1_699_999_700, now))
    assert.isFalse(timestampInWindow(1_700_000_301, now))
    assert.isFalse(timestampInWindow(1_699_999_699, now))
  })

  it("nonces are 8 to 128 printable ASCII characters", () => {
    assert.isTrue(nonceWellFormed("12345678"))
    assert.isTrue(nonceWellFormed("n".repeat(128)))
    assert.isTrue(nonceWellFormed("550e8400-e29b-41d4-a716-446655440000"))
    for (const bad of ["1234567", "n".repeat(129), "nonce with space", "nonce\u00e9\u00e9\u00e9", ""]) {
      assert.isFalse(nonceWellFormed(bad), bad)
    }
  })
})

describe("what a federation request presents", () => {
  const hmac = {
    "x-federation-platform-id": "tbk_01234567",
    "x-federation-timestamp": "1700000000",
    "x-federation-nonce": "12345678",
    "x-federation-signature": POST_VECTOR
  }

  it("reads Bearer first, then X-API-Key; another scheme counts as nothing", () => {
    assert.deepStrictEqual(presentedCredentials({}), { bearer: undefined, signature: { _tag: "None" } })
    assert.strictEqual(presentedCredentials({ authorization: "Bearer  tbk_a " }).bearer, "tbk_a")
    assert.strictEqual(presentedCredentials({ authorization: "bearer tbk_a", "x-api-key": "tbk_b" }).bearer, "tbk_a")
    assert.strictEqual(presentedCredentials({ "x-api-key": "tbk_b" }).bearer, "tbk_b")
    assert.isUndefined(presentedCredentials({ authorization: "Basic eDp5" }).bearer)
    assert.isUndefined(presentedCredentials({ authorization: "Bearer " }).bearer)
  })

  it("tells complete, incomplete and absent signature headers apart", () => {
    assert.deepStrictEqual(presentedCredentials(hmac).signature, {
      _tag: "Complete",
      platformId: "tbk_01234567",
      timestamp: "1700000000",
      nonce: "12345678",
      signature: POST_VECTOR
    })
    for (const name of Object.keys(hmac)) {
      assert.deepStrictEqual(presentedCredentials({ ...hmac, [name]: " " }).signature, { _tag: "Incomplete" }, name)
    }
  })

  it("knows a JWT from an API key", () => {
    assert.isTrue(looksLikeFederationJwt("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2ln"))
    assert.isTrue(looksLikeFederationJwt("eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0."))
    assert.isFalse(looksLikeFederationJwt(`tbk_${"ab".repeat(32)}`))
    assert.isFalse(looksLikeFederationJwt("a.b"))
  })

  it("finds a tenant header that names another community", () => {
    const tenant = { id: 7, slug: "acme" }
    assert.isFalse(tenantHeaderDisagrees({}, tenant))
    assert.isFalse(tenantHeaderDisagrees({ "x-tenant-id": "7", "x-tenant-slug": "ACME" }, tenant))
    assert.isTrue(tenantHeaderDisagrees({ "x-tenant-id": "8" }, tenant))
    assert.isTrue(tenantHeaderDisagrees({ "x-tenant-id": "07" }, tenant))
    assert.isTrue(tenantHeaderDisagrees({ "x-tenant-slug": "other" }, tenant))
    assert.isTrue(tenantHeaderDisagrees({ "x-tenant-id": "7", "x-tenant-slug": "other" }, tenant))
  })
})

describe("the gate's decisions (D13a)", () => {
  const read: FederationAccessPolicy = { toggle: "listings", scope: "listings:read" }
  const write: FederationAccessPolicy = { toggle: "reviews", scope: "reviews:write", write: true }
  const webhooks: FederationAccessPolicy = { toggle: null, scope: null, signedOnly: true }
  const on = { active: true, whitelisted: true, toggles: { ...NO_TOGGLES, listings: true } }

  it("switches: an inactive or unlisted community, then the route's toggle; webhooks need no toggle", () => {
    assert.isUndefined(switchesRefuse(read, on))
    assert.strictEqual(switchesRefuse(read, { ...on, whitelisted: false }), "whitelist")
    assert.strictEqual(switchesRefuse(read, { ...on, active: false }), "whitelist")
    assert.strictEqual(switchesRefuse(read, { ...on, toggles: NO_TOGGLES }), "toggle")
    assert.strictEqual(switchesRefuse(write, on), "toggle")
    assert.isUndefined(switchesRefuse(webhooks, { ...on, toggles: NO_TOGGLES }))
    assert.strictEqual(switchesRefuse(webhooks, { ...on, whitelisted: false }), "whitelist")
    assert.strictEqual(FederationDisabled.status, 503)
  })

  it("permissions: scope, then a suspended partner everywhere, then writes need an active partner", () => {
    const key = (scopes: ReadonlyArray<"listings:read" | "reviews:write">, partnerStatus: string | null) => ({
      scopes,
      partnerStatus
    })
    assert.isUndefined(permissionRefusal(read, key(["listings:read"], null)))
    assert.include(permissionRefusal(read, key(["reviews:write"], "active")), "listings:read")
    assert.include(permissionRefusal(read, key(["listings:read"], "suspended")), "suspended")
    assert.include(permissionRefusal(read, key(["listings:read"], "deleted")), "suspended")
    assert.isUndefined(permissionRefusal(read, key(["listings:read"], "pending")))
    assert.isUndefined(permissionRefusal(write, key(["reviews:write"], "active")))
    for (const status of [null, "pending", "failed", "suspended"]) {
      assert.isDefined(permissionRefusal(write, key(["reviews:write"], status)), String(status))
    }
    assert.isUndefined(permissionRefusal(webhooks, key(["listings:read"], "pending")))
    assert.deepStrictEqual(narrowScopes(["listings:read", "members:read"], ["members:read", "events:read"]), [
      "members:read"
    ])
  })

  it("per-key windows are clock minutes", () => {
    assert.deepStrictEqual(minuteWindow(1_700_000_000_000), { index: 28_333_333, endsAtMillis: 1_700_000_040_000 })
    assert.deepStrictEqual(minuteWindow(1_700_000_040_000), { index: 28_333_334, endsAtMillis: 1_700_000_100_000 })
  })
})

describe("the token endpoint's form (RFC 6749)", () => {
  it("reads HTTP Basic client credentials", () => {
    // printf 'tbk_abcdefgh:tbk_secret' | base64
    assert.deepStrictEqual(basicCredentials("Basic dGJrX2FiY2RlZmdoOnRia19zZWNyZXQ="), {
      clientId: "tbk_abcdefgh",
      clientSecret: "tbk_secret"
    })
    for (
      const bad of [undefined, "", "Bearer x", "Basic", "Basic !!!", `Basic ${btoa("no-colon")}`, `Basic ${btoa(":x")}`]
    ) {
      assert.isUndefined(basicCredentials(bad), String(bad))
    }
  })

  it("grants the key's scopes, narrowed by scope; refuses what RFC 6749 refuses", () => {
    const scopes = ["listings:read", "members:read"] as const
    assert.deepStrictEqual(grantOf({ grant_type: "client_credentials" }, scopes), scopes)
    assert.deepStrictEqual(grantOf({ grant_type: "client_credentials", scope: " " }, scopes), scopes)
    assert.deepStrictEqual(
      grantOf({ grant_type: "client_credentials", scope: "members:read listings:read" }, scopes),
      scopes
    )
    assert.deepStrictEqual(grantOf({ grant_type: "client_credentials", scope: "members:read" }, scopes), [
      "members:read"
    ])
    const error = (form: Parameters<typeof grantOf>[0]) => {
      const outcome = grantOf(form, scopes)
      return outcome instanceof OAuthRequestRefused ? outcome.error : "granted"
    }
    assert.strictEqual(error({}), "invalid_request")
    assert.strictEqual(error({ grant_type: "" }), "invalid_request")
    assert.strictEqual(error({ grant_type: "authorization_code" }), "unsupported_grant_type")
    assert.strictEqual(error({ grant_type: "client_credentials", scope: "events:read" }), "invalid_scope")
    assert.strictEqual(error({ grant_type: "client_credentials", scope: "listings:read admin" }), "invalid_scope")
  })
})
