import { SqlClient } from "@effect/sql"
import { assert, layer } from "@effect/vitest"
import { FederationPartnerId, type PartnerDiagnosis } from "@timebank/domain"
import { Effect } from "effect"
import { type ApiClient, apiClient, expectError, expectOk } from "../fixtures/client.js"
import { community, makeActor } from "../fixtures/community.js"
import { makePartner } from "../fixtures/federation.js"
import { tenantHeaders } from "../fixtures/tenants.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { nativePeer } from "./peers/nativePeer.js"
import { type TimeOverflowPeer, timeoverflowPeer } from "./peers/timeoverflowPeer.js"

/**
 * `POST /api/v2/admin/federation/partners/{id}/diagnose` (decisions D16): the checks of the partner's protocol in
 * D16's order, each quoting the partner, with no side effects; and `POST /{id}/test` of a non-native partner, which
 * runs them and activates the partner only when every one holds.
 */

const PARTNERS = "/api/v2/admin/federation/partners"
const pid = (id: number) => FederationPartnerId.make(id)

const statusOf = (id: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ status: string }>`SELECT status FROM federation_partners WHERE id = ${id}`
  ).pipe(
    Effect.map((rows) => rows[0]!.status),
    Effect.orDie
  )

const deliveryCount = (partnerId: number) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) => sql<{ n: number }>`SELECT count(*)::int AS n FROM federation_deliveries WHERE partner_id = ${partnerId}`
  ).pipe(
    Effect.map((rows) => rows[0]!.n),
    Effect.orDie
  )

/** A TimeOverflow partner of `tenant` at `peer`, `pending` unless said otherwise. */
const timeoverflowPartner = (
  tenant: { readonly id: number },
  peer: TimeOverflowPeer,
  options: {
    readonly status?: "pending" | "active" | "suspended" | "failed"
    readonly credentials?: Record<string, string>
    readonly baseUrl?: string
  } = {}
) =>
  makePartner(tenant, {
    protocol: "timeoverflow",
    status: options.status ?? "pending",
    baseUrl: options.baseUrl ?? peer.url,
    credentials: options.credentials ?? peer.credentials,
    settings: { remote_partner_id: peer.partnerId }
  })

const byName = (diagnosis: PartnerDiagnosis) => Object.fromEntries(diagnosis.checks.map((c) => [c.name, c]))

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("federation partner diagnose", (it) => {
  it.scoped("a TimeOverflow partner: reachability, auth, webhook and clock skew hold, quoted; nothing changes", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const peer = yield* timeoverflowPeer()
      const partner = yield* timeoverflowPartner(c.tenant, peer)
      const { data } = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id: pid(partner.id) } }))
      assert.isTrue(data.ok)
      assert.deepStrictEqual(data.checks.map((check) => [check.name, check.ok]), [
        ["reachability", true],
        ["auth", true],
        ["webhook", true],
        ["clock_skew", true]
      ])
      const checks = byName(data)
      assert.match(checks["reachability"]!.detail, /^HTTP 200: \{"success":true,"data":\{"status":"healthy"/)
      assert.match(checks["auth"]!.detail, /^HTTP 200: \{"success":true,"data":\[\{"id":1/)
      assert.strictEqual(
        checks["webhook"]!.detail,
        `POST ${peer.url}/api/v1/webhooks/receive: HTTP 200: ` +
          "{\"success\":true,\"data\":{\"received\":true,\"event\":\"health_check\"}}"
      )
      assert.match(checks["clock_skew"]!.detail, /^Date: .+ \([+-]\d+ s from our clock; ±60 s allowed\)$/)

      // What the peer saw: health without a key, a keyed read, one signed health_check.
      assert.deepStrictEqual(peer.requests.map((r) => `${r.method} ${r.path}`).sort(), [
        "GET /api/v1/health",
        "GET /api/v1/organizations?per_page=1",
        "POST /api/v1/webhooks/receive"
      ])
      const health = peer.requests.find((r) => r.path === "/api/v1/health")!
      assert.isUndefined(health.headers["x-federation-api-key"])
      const read = peer.requests.find((r) => r.path.startsWith("/api/v1/organizations"))!
      assert.strictEqual(read.headers["x-federation-api-key"], peer.credentials.api_key)
      assert.strictEqual(peer.webhooks.length, 1)
      assert.strictEqual(peer.webhooks[0]!.verified, "four_part")
      assert.deepInclude(peer.webhooks[0]!.body, {
        event: "health_check",
        data: {},
        partner_id: peer.partnerId,
        tenant: { id: c.tenant.id, slug: c.tenant.slug }
      })
      assert.deepStrictEqual(peer.transfers, [])
      assert.strictEqual(yield* statusOf(partner.id), "pending")
      assert.strictEqual(yield* deliveryCount(partner.id), 0)
    }))

  it.scoped("a native partner: its protocol's checks hold", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const peer = yield* nativePeer()
      const partner = yield* makePartner(c.tenant, {
        status: "pending",
        baseUrl: peer.url,
        credentials: peer.credentials
      })
      const { data } = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id: pid(partner.id) } }))
      assert.isTrue(data.ok, JSON.stringify(data))
      assert.deepStrictEqual(data.checks.map((check) => check.name), ["reachability", "auth", "clock_skew"])
      assert.isTrue(data.checks.every((check) => check.ok && check.detail !== ""))
      assert.deepStrictEqual(peer.refusals, [])
      assert.strictEqual(peer.credits.size, 0)
      assert.strictEqual(yield* statusOf(partner.id), "pending")
    }))

  it.scoped("a failing check says so and quotes the partner; the others still run", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const diagnose = (id: number) =>
        Effect.map(expectOk(c.admin.client.federationPartners.diagnose({ path: { id: pid(id) } })), (r) => r.data)

      const keyPeer = yield* timeoverflowPeer()
      const wrongKey = yield* diagnose(
        (yield* timeoverflowPartner(c.tenant, keyPeer, {
          credentials: { ...keyPeer.credentials, api_key: "to_fed_wrong" }
        })).id
      )
      assert.isFalse(wrongKey.ok)
      assert.deepInclude(byName(wrongKey)["auth"], {
        ok: false,
        detail: "HTTP 401: {\"error\":\"Unauthorized\",\"message\":\"Invalid or expired API key\"}"
      })
      assert.deepStrictEqual(wrongKey.checks.filter((check) => !check.ok).map((check) => check.name), ["auth"])

      const secretPeer = yield* timeoverflowPeer()
      const wrongSecret = yield* diagnose(
        (yield* timeoverflowPartner(c.tenant, secretPeer, {
          credentials: { ...secretPeer.credentials, webhook_secret: "not-the-secret" }
        })).id
      )
      assert.deepInclude(byName(wrongSecret)["webhook"], {
        ok: false,
        detail: `POST ${secretPeer.url}/api/v1/webhooks/receive: HTTP 401: ` +
          "{\"success\":false,\"error\":\"Invalid signature\"}"
      })
      assert.deepStrictEqual(secretPeer.webhooks, [])

      const aheadPeer = yield* timeoverflowPeer({ clockOffsetSeconds: 120 })
      const ahead = yield* diagnose((yield* timeoverflowPartner(c.tenant, aheadPeer)).id)
      assert.isFalse(byName(ahead)["clock_skew"]!.ok)
      assert.match(byName(ahead)["clock_skew"]!.detail, /\(\+1[12]\d s from our clock; ±60 s allowed\)$/)
      assert.deepStrictEqual(ahead.checks.filter((check) => !check.ok).map((check) => check.name), ["clock_skew"])

      // Nobody listening: reachability fails with the reason, the keyed checks are not tried there.
      const down = yield* diagnose(
        (yield* timeoverflowPartner(c.tenant, keyPeer, { baseUrl: "http://127.0.0.1:9" })).id
      )
      assert.deepStrictEqual(down.checks.map((check) => [check.name, check.ok]), [
        ["reachability", false],
        ["auth", false],
        ["webhook", false],
        ["clock_skew", false]
      ])
      assert.match(byName(down)["reachability"]!.detail, /^request failed: /)
      assert.strictEqual(byName(down)["auth"]!.detail, "not tried: /api/v1/health did not answer")

      // No credentials yet: nothing keyed or signed is sent.
      const barePeer = yield* timeoverflowPeer()
      const bare = yield* makePartner(c.tenant, {
        protocol: "timeoverflow",
        status: "pending",
        baseUrl: barePeer.url,
        settings: { remote_partner_id: barePeer.partnerId }
      })
      const unkeyed = byName(yield* diagnose(bare.id))
      assert.strictEqual(unkeyed["auth"]!.detail, "not tried: the credential api_key is not set")
      assert.strictEqual(unkeyed["webhook"]!.detail, "not tried: the credential webhook_secret is not set")
      assert.deepStrictEqual(barePeer.requests.map((r) => r.path), ["/api/v1/health"])
    }))

  it.effect("admins only: members and brokers 403, anonymous 401, another community's partner and odd ids 404", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const d = yield* community({ signIn: "token" })
      const mine = yield* makePartner(c.tenant, { protocol: "timeoverflow", status: "active" })
      const theirs = yield* makePartner(d.tenant, { protocol: "timeoverflow", status: "active" })
      const broker = yield* makeActor(c.tenant, { role: "broker" }, "token")
      const foreign = yield* apiClient({ ...d.admin.headers, ...tenantHeaders(c.tenant) })
      const diagnose = (client: ApiClient, id: number) => client.federationPartners.diagnose({ path: { id: pid(id) } })
      yield* diagnose(c.visitor.client, mine.id).pipe(expectError(401, "AUTH_REQUIRED"))
      for (const { client } of [c.member, broker]) yield* diagnose(client, mine.id).pipe(expectError(403, "FORBIDDEN"))
      yield* diagnose(foreign, mine.id).pipe(expectError(401, "AUTH_REQUIRED"))
      yield* diagnose(c.admin.client, theirs.id).pipe(expectError(404, "NOT_FOUND"))
      for (const odd of ["abc", "0", "-1"]) {
        const res = yield* rawRequest("POST", `${PARTNERS}/${odd}/diagnose`, { headers: c.adminHeaders })
        assert.strictEqual(res.status, 404, res.text)
      }
      assert.strictEqual(yield* statusOf(mine.id), "active")
      assert.strictEqual(yield* statusOf(theirs.id), "active")
    }))

  it.scoped("POST /test of a non-native partner runs the checks: all hold → active; one fails → unchanged", () =>
    Effect.gen(function*() {
      const c = yield* community({ signIn: "token" })
      const client = c.admin.client.federationPartners
      const peer = yield* timeoverflowPeer()

      const failing = yield* timeoverflowPartner(c.tenant, peer, {
        credentials: { ...peer.credentials, api_key: "to_fed_wrong" }
      })
      const refused = yield* expectOk(client.test({ path: { id: pid(failing.id) } }))
      assert.deepInclude(refused.data, { ok: false, status_code: null })
      assert.strictEqual(
        refused.data.error,
        "auth failed: HTTP 401: {\"error\":\"Unauthorized\",\"message\":\"Invalid or expired API key\"}"
      )
      assert.strictEqual(yield* statusOf(failing.id), "pending")

      const pending = yield* timeoverflowPartner(c.tenant, peer)
      const passed = yield* expectOk(client.test({ path: { id: pid(pending.id) } }))
      assert.deepStrictEqual(Object.keys(passed.data).sort(), ["latency_ms", "ok", "status_code"])
      assert.deepInclude(passed.data, { ok: true, status_code: null })
      assert.isAtLeast(passed.data.latency_ms, 0)
      assert.strictEqual(yield* statusOf(pending.id), "active")
      // The test made no signed `test` webhook: only the checks' calls reached the peer.
      assert.isTrue(peer.webhooks.every((w) => w.body["event"] === "health_check"))

      const failed = yield* timeoverflowPartner(c.tenant, peer, { status: "failed" })
      assert.isTrue((yield* expectOk(client.test({ path: { id: pid(failed.id) } }))).data.ok)
      assert.strictEqual(yield* statusOf(failed.id), "active")
      const suspended = yield* timeoverflowPartner(c.tenant, peer, { status: "suspended" })
      assert.isTrue((yield* expectOk(client.test({ path: { id: pid(suspended.id) } }))).data.ok)
      assert.strictEqual(yield* statusOf(suspended.id), "suspended")
    }))
})
