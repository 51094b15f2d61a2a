import { assert, describe, it } from "@effect/vitest"
import { FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type {
  OutboundTransfer,
  PartnerContext
} from "../../packages/server/src/federation/protocols/FederationProtocol.js"
import { makeKomunitinProtocol } from "../../packages/server/src/federation/protocols/KomunitinProtocol.js"
import { partnerRequest } from "../../packages/server/src/federation/protocols/PartnerHttp.js"
import { fakePeer } from "./peers/fakePeer.js"
import {
  KOMUNITIN_READ_TOKEN,
  KOMUNITIN_TOKEN,
  komunitinError,
  komunitinPeer,
  PAYEE_ACCOUNT,
  PAYER_ACCOUNT
} from "./peers/komunitinPeer.js"

/**
 * The `komunitin` protocol on its own against the fake Komunitin server: diagnose (no money involved, so no
 * community is needed) and the wire cases the route tests do not reach. The transfer route's tests are in
 * komunitinOutbound.test.ts.
 */

const context = (
  baseUrl: string,
  settings: Record<string, unknown> = {},
  credentials: Record<string, string> = { access_token: KOMUNITIN_TOKEN }
): PartnerContext => ({
  partner: {
    id: FederationPartnerId.make(1),
    tenantId: 1,
    name: "Komunitin test",
    protocolType: "komunitin",
    baseUrl,
    webhookUrl: null,
    status: "active",
    creditLimit: 100,
    credentialKeys: Object.keys(credentials),
    settings: { currency_code: "TEST", payer_account_id: PAYER_ACCOUNT, ...settings }
  },
  credentials,
  community: { id: 1, slug: "test", currencyCode: "TBNK" }
})

const transfer = (cents: number): OutboundTransfer => ({
  uuid: randomUUID(),
  recipient: PAYEE_ACCOUNT,
  cents,
  description: "Garden help",
  sender: { userId: 7, name: "Mia Member", accountCode: "TBNK0007", accountId: randomUUID() }
})

const byName = (checks: ReadonlyArray<{ name: string; ok: boolean; detail: string }>) =>
  Object.fromEntries(checks.map((c) => [c.name, c]))

describe("komunitin protocol", () => {
  it.scoped("diagnose: reachability, currency, auth, account, clock_skew in D16's order, all ok, reads only", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      assert.isUndefined(protocol.webhook, "Komunitin takes no webhooks")
      const peer = yield* komunitinPeer()
      const checks = yield* protocol.diagnose(context(peer.url))
      assert.deepStrictEqual(checks.map((c) => c.name), ["reachability", "currency", "auth", "account", "clock_skew"])
      assert.deepStrictEqual(checks.map((c) => c.ok), [true, true, true, true, true])
      const c = byName(checks)
      assert.include(c["reachability"]!.detail, "Welcome to the Komunitin accounting API.")
      assert.strictEqual(c["currency"]!.detail, "TEST (scale 4, rate 1/10: 1 h = 100000 units): 0.01 h = 1000 units")
      assert.strictEqual(c["auth"]!.detail, "HTTP 200: the access token reads /TEST/transfers")
      assert.strictEqual(c["account"]!.detail, `account TEST0001 (${PAYER_ACCOUNT}), status active`)
      assert.match(c["clock_skew"]!.detail, /^Date: .* s from our clock; ±60 s allowed\)$/)
      assert.deepStrictEqual(peer.requests.map((r) => `${r.method} ${r.path}`), [
        "GET /",
        "GET /TEST/currency",
        "GET /TEST/transfers?page[size]=1",
        `GET /TEST/accounts/${PAYER_ACCOUNT}`
      ])
      assert.strictEqual(peer.requests[2]!.headers["authorization"], `Bearer ${KOMUNITIN_TOKEN}`)
      assert.strictEqual(peer.transfers.size, 0)
    }))

  it.scoped("diagnose: a scale too small for 0.01 h fails `currency` naming the scale; the rest still runs", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer({ scale: 1, rate: { n: 1, d: 1 } })
      const c = byName(yield* protocol.diagnose(context(peer.url)))
      assert.isFalse(c["currency"]!.ok)
      assert.strictEqual(
        c["currency"]!.detail,
        "0.01 h is 1/10 units of TEST (scale 1, rate 1/1: 1 h = 10 units); Komunitin takes whole units only, " +
          "so at scale 1 our 0.01 h cannot be sent"
      )
      assert.isTrue(c["auth"]!.ok && c["account"]!.ok && c["reachability"]!.ok)
      // A disabled currency fails too, saying so.
      peer.currency.scale = 2
      peer.currency.status = "disabled"
      const disabled = byName(yield* protocol.diagnose(context(peer.url)))
      assert.isFalse(disabled["currency"]!.ok)
      assert.include(disabled["currency"]!.detail, "has status disabled, not active")
    }))

  it.scoped("diagnose: a refused token, an unknown account and a wrong currency code quote Komunitin", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer()
      const badToken = byName(yield* protocol.diagnose(context(peer.url, {}, { access_token: "expired" })))
      assert.isFalse(badToken["auth"]!.ok)
      assert.strictEqual(badToken["auth"]!.detail, "HTTP 401 Unauthorized: Invalid Token")
      assert.isTrue(badToken["currency"]!.ok)

      const missing = randomUUID()
      const noAccount = byName(yield* protocol.diagnose(context(peer.url, { payer_account_id: missing })))
      assert.isFalse(noAccount["account"]!.ok)
      assert.strictEqual(noAccount["account"]!.detail, `HTTP 404 NotFound: Account ${missing} not found`)

      const wrongCode = byName(yield* protocol.diagnose(context(peer.url, { currency_code: "NOPE" })))
      assert.deepStrictEqual([wrongCode["currency"]!.ok, wrongCode["auth"]!.ok, wrongCode["account"]!.ok], [
        false,
        false,
        false
      ])
      assert.strictEqual(wrongCode["currency"]!.detail, "HTTP 404 NotFound: Currency NOPE not found")

      // A suspended payer account.
      peer.accounts.get(PAYER_ACCOUNT)!.status = "suspended"
      const suspended = byName(yield* protocol.diagnose(context(peer.url)))
      assert.strictEqual(
        suspended["account"]!.detail,
        `account TEST0001 (${PAYER_ACCOUNT}) has status suspended, not active`
      )
    }))

  it.scoped("diagnose: a clock 5 minutes off fails clock_skew; an unreachable partner fails everything at once", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer()
      const late = new Date(Date.now() - 300_000).toUTCString()
      peer.handle = (r) => {
        const answer = peer.komunitin(r)
        return answer === "hang" ? answer : { ...answer, headers: { ...answer.headers, date: late } }
      }
      const skewed = byName(yield* protocol.diagnose(context(peer.url)))
      assert.isFalse(skewed["clock_skew"]!.ok)
      assert.include(skewed["clock_skew"]!.detail, `Date: ${late} (-30`)

      const closed = yield* Effect.scoped(Effect.map(fakePeer(() => ({ status: 200 })), (p) => p.url))
      const down = yield* protocol.diagnose(context(closed))
      assert.deepStrictEqual(down.map((c) => c.ok), [false, false, false, false, false])
      assert.match(down[0]!.detail, /ECONNREFUSED/)
      assert.match(down[1]!.detail, /^not checked: request failed: .*ECONNREFUSED/)
      assert.strictEqual(down[4]!.detail, "no answer to read a Date header from")
    }))

  it.scoped("diagnose: settings a partner could not have been saved with are named, not sent", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer()
      const checks = byName(yield* protocol.diagnose(context(peer.url, { payer_account_id: "local/123" })))
      assert.strictEqual(
        checks["account"]!.detail,
        "not checked: settings.payer_account_id: must be a UUID (the id of a Komunitin account)"
      )
      assert.deepStrictEqual(peer.requests.map((r) => r.path), ["/"])
    }))

  it.effect("contract: access_token required, komunitin_public_keys optional; the recipient is a Komunitin account UUID", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      assert.deepStrictEqual(protocol.requiredCredentials, ["access_token"])
      assert.deepStrictEqual(protocol.optionalCredentials, ["komunitin_public_keys"])
      assert.isUndefined(protocol.recipientIssue(PAYEE_ACCOUNT))
      assert.isUndefined(protocol.recipientIssue(PAYEE_ACCOUNT.toUpperCase()))
      for (const bad of ["42", "local/123", "TEST0002", `${PAYEE_ACCOUNT}x`]) {
        assert.strictEqual(protocol.recipientIssue(bad), "must be the UUID of the recipient's Komunitin account")
      }
    }))

  it.scoped("prepare: a currency that cannot be read stops the transfer before any money moves", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer()
      peer.handle = () => ({ status: 200, raw: "<html>maintenance</html>" })
      const notJson = yield* Effect.flip(protocol.prepare(context(peer.url), transfer(150)))
      assert.strictEqual(notJson._tag, "PartnerUnreachable")
      assert.strictEqual(
        (notJson as { detail: string }).detail,
        "GET /TEST/currency: not a Komunitin currency (the answer has no data.attributes)"
      )
      peer.handle = () => komunitinError(503, "InternalError", "Database unavailable")
      const down = yield* Effect.flip(protocol.prepare(context(peer.url), transfer(150)))
      assert.deepStrictEqual(
        { tag: down._tag, status: (down as { httpStatus: number }).httpStatus },
        { tag: "PartnerUnreachable", status: 503 }
      )
      assert.strictEqual(
        (down as { detail: string }).detail,
        "GET /TEST/currency: HTTP 503 InternalError: Database unavailable"
      )
    }))

  it.scoped("send: a 201 with the transfer not committed is a failure, its outcome unknown while it is pending", () =>
    Effect.gen(function*() {
      const protocol = yield* makeKomunitinProtocol
      const peer = yield* komunitinPeer()
      peer.handle = (r) => {
        const answer = peer.komunitin(r)
        if (answer === "hang" || r.method !== "POST") return answer
        const body = answer.body as { data: { attributes: { state: string } } }
        body.data.attributes.state = "pending"
        return answer
      }
      const t = transfer(100)
      const prepared = yield* protocol.prepare(context(peer.url), t)
      assert.strictEqual(prepared.remoteAmount, "100000")
      const outcome = yield* protocol.send(context(peer.url), t, prepared)
      assert.deepStrictEqual(outcome, {
        _tag: "Failed",
        httpStatus: 201,
        detail: "Komunitin answered HTTP 201 with the transfer in state \"pending\", not \"committed\"",
        outcomeUnknown: true
      })
      // A read-only token: Komunitin's 403, quoted; nothing moved.
      peer.handle = peer.komunitin
      const readOnly = yield* protocol.send(
        context(peer.url, {}, { access_token: KOMUNITIN_READ_TOKEN }),
        transfer(100),
        prepared
      )
      assert.deepStrictEqual(readOnly, {
        _tag: "Failed",
        httpStatus: 403,
        detail: "HTTP 403 Forbidden: Insufficient Scope",
        outcomeUnknown: false
      })
    }))

  it.scoped("the fake peer refuses what Komunitin refuses (NEXUS's shapes among them), first error only", () =>
    Effect.gen(function*() {
      const peer = yield* komunitinPeer()
      const good = {
        data: {
          type: "transfers",
          id: randomUUID(),
          attributes: { amount: 100, meta: { description: "User transfer" }, state: "committed" },
          relationships: {
            payer: { data: { type: "accounts", id: PAYER_ACCOUNT } },
            payee: { data: { type: "accounts", id: PAYEE_ACCOUNT } }
          }
        }
      }
      const post = (body: unknown, options: { path?: string; token?: string | null } = {}) =>
        Effect.map(
          partnerRequest({
            method: "POST",
            url: `${peer.url}${options.path ?? "/TEST/transfers"}`,
            headers: {
              "content-type": "application/vnd.api+json",
              ...(options.token === null ? {} : { authorization: `Bearer ${options.token ?? KOMUNITIN_TOKEN}` })
            },
            body: JSON.stringify(body)
          }),
          (r) => [r.statusCode, JSON.parse(r.body).errors?.[0]?.detail ?? JSON.parse(r.body).data.attributes.state]
        )
      const withAttributes = (attributes: Record<string, unknown>) => ({
        data: { ...good.data, id: randomUUID(), attributes: { ...good.data.attributes, ...attributes } }
      })
      const withPayer = (id: string) => ({
        data: {
          ...good.data,
          id: randomUUID(),
          relationships: { ...good.data.relationships, payer: { data: { type: "accounts", id } } }
        }
      })
      const field = (f: string) => [400, `Field ${f} is invalid in request body.`]
      assert.deepStrictEqual(yield* post(withAttributes({ meta: "Garden help" })), field("data.attributes.meta"))
      assert.deepStrictEqual(yield* post(withAttributes({ amount: 10.5 })), field("data.attributes.amount"))
      assert.deepStrictEqual(yield* post(withAttributes({ amount: 0 })), field("data.attributes.amount"))
      assert.deepStrictEqual(yield* post(withAttributes({ state: "pending" })), field("data.attributes.state"))
      assert.deepStrictEqual(yield* post(withPayer("local/123")), field("data.relationships.payer.data.id"))
      assert.deepStrictEqual(yield* post(withAttributes({ note: "x" })), [
        400,
        "Unknown field(s): data.attributes.note"
      ])
      assert.deepStrictEqual(yield* post(good, { token: null }), [401, "Unauthorized"])
      assert.deepStrictEqual(yield* post(good, { token: KOMUNITIN_READ_TOKEN }), [403, "Insufficient Scope"])
      assert.deepStrictEqual(yield* post(good, { path: "/default/transfers" }), [404, "Currency default not found"])
      assert.strictEqual(peer.transfers.size, 0)
      assert.deepStrictEqual(yield* post(good), [201, "committed"])
      assert.deepStrictEqual(yield* post(good), [400, `Transfer with id ${good.data.id} already exists`])
    }))
})
