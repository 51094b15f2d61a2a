import { assert, describe, it } from "@effect/vitest"
import { FederationPartnerId } from "@timebank/domain"
import { signedPost } from "@timebank/server"
import { Effect } from "effect"
import type { PartnerContext } from "../../packages/server/src/federation/protocols/FederationProtocol.js"
import { makeNativeProtocol } from "../../packages/server/src/federation/protocols/NativeProtocol.js"
import { fakePeer } from "./peers/fakePeer.js"
import { nativePeer } from "./peers/nativePeer.js"

/**
 * The `native` protocol on its own against the native peer: diagnose (no money involved) and the webhook dialect,
 * which must sign exactly as the signed POST of our webhooks does. The transfer route's tests are in
 * transfersOutbound.test.ts.
 */

const context = (baseUrl: string, credentials: Record<string, string>): PartnerContext => ({
  partner: {
    id: FederationPartnerId.make(1),
    tenantId: 1,
    name: "Riverside Timebank",
    protocolType: "native",
    baseUrl,
    webhookUrl: null,
    status: "active",
    creditLimit: 100,
    credentialKeys: Object.keys(credentials),
    settings: {}
  },
  credentials,
  community: { id: 1, slug: "test", currencyCode: "TBNK" }
})

const byName = (checks: ReadonlyArray<{ name: string; ok: boolean; detail: string }>) =>
  Object.fromEntries(checks.map((c) => [c.name, c]))

describe("native protocol", () => {
  it.scoped("diagnose: reachability, auth, clock_skew in D16's order, from one signed read", () =>
    Effect.gen(function*() {
      const peer = yield* nativePeer()
      const native = yield* makeNativeProtocol
      const checks = yield* native.diagnose(context(`${peer.url}/`, peer.credentials))
      assert.deepStrictEqual(checks.map((c) => [c.name, c.ok]), [
        ["reachability", true],
        ["auth", true],
        ["clock_skew", true]
      ])
      assert.strictEqual(peer.requests.length, 1)
      assert.strictEqual(peer.requests[0]!.method, "GET")
      assert.strictEqual(peer.requests[0]!.path, "/api/v1/federation/transactions?per_page=1")
      assert.deepStrictEqual(peer.refusals, [])
      assert.strictEqual(peer.credits.size, 0)
    }))

  it.scoped("diagnose: a key the peer does not know fails auth, quoting it; no credentials fail every check", () =>
    Effect.gen(function*() {
      const peer = yield* nativePeer()
      const native = yield* makeNativeProtocol
      const wrongKey = byName(
        yield* native.diagnose(context(peer.url, { ...peer.credentials, api_key: "tbk_someone-else" }))
      )
      assert.isTrue(wrongKey["reachability"]!.ok)
      assert.isFalse(wrongKey["auth"]!.ok)
      assert.strictEqual(
        wrongKey["auth"]!.detail,
        "HTTP 401: {\"errors\":[{\"code\":\"INVALID_API_KEY\",\"message\":\"Bad key\"}]}"
      )
      const none = yield* native.diagnose(context(peer.url, {}))
      assert.deepStrictEqual(none.map((c) => [c.name, c.ok]), [
        ["reachability", false],
        ["auth", false],
        ["clock_skew", false]
      ])
      assert.strictEqual(peer.requests.length, 1)
    }))

  it.scoped("recipient: digits without a leading zero, more than 0", () =>
    Effect.gen(function*() {
      const native = yield* makeNativeProtocol
      for (const ok of ["1", "42", "999999999999999"]) assert.isUndefined(native.recipientIssue(ok), ok)
      for (const bad of ["", "0", "007", "-1", "1.5", "1e3", "a1", "1234567890123456"]) {
        assert.isDefined(native.recipientIssue(bad), bad)
      }
    }))

  it.scoped("webhook dialect: D13's body unchanged, headers as our signed POST sends them, verified by the peer", () =>
    Effect.gen(function*() {
      const peer = yield* nativePeer()
      const native = yield* makeNativeProtocol
      const dialect = native.webhook!
      const partner = context(peer.url, peer.credentials)
      const d13 = { id: "w-1", event: "listing.created", tenant: { id: 1, slug: "t" }, occurred_at: "x", data: {} }
      assert.strictEqual(dialect.body(partner, d13), d13)
      const body = JSON.stringify(d13)

      // What the delivery sender sends today, captured by a plain peer, against what the dialect gives.
      const capture = yield* fakePeer(() => ({ status: 200, body: {} }))
      const url = `${capture.url}/hooks/in?x=1`
      yield* signedPost({
        url,
        body,
        credentials: { apiKey: peer.credentials.api_key, signingSecret: peer.credentials.signing_secret },
        webhookId: "w-1",
        nonce: "fixed-nonce-0001",
        nowMillis: 1_777_629_600_000
      })
      const headers = dialect.headers(partner, { url, body, webhookId: "w-1", nowMillis: 1_777_629_600_000 })!
      const sent = capture.requests[0]!.headers
      for (const name of ["authorization", "content-type", "x-federation-webhook-id", "x-federation-platform-id"]) {
        assert.strictEqual(headers[name], sent[name], name)
      }
      assert.strictEqual(headers["x-federation-timestamp"], "1777629600")
      assert.match(headers["x-federation-nonce"]!, /^[0-9a-f-]{36}$/)

      // Signed over the URL's path and query: the native peer, with its own HMAC code, accepts the signature.
      const fresh = dialect.headers(partner, {
        url: `${peer.url}/api/v1/federation/transactions`,
        body,
        webhookId: "w-1",
        nowMillis: Date.now()
      })!
      const check = peer.behave({
        method: "POST",
        path: "/api/v1/federation/transactions",
        headers: fresh,
        raw: body,
        json: d13
      })
      // Verified, then refused as a credit for its body (a webhook is not a transaction): not a 401.
      assert.strictEqual(check !== "hang" && check.status, 422)
      assert.deepStrictEqual(peer.refusals, [])
      assert.isUndefined(dialect.headers(context(peer.url, {}), { url, body, webhookId: "w-1", nowMillis: 0 }))
    }))
})
