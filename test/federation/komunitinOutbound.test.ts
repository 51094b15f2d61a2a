import { assert, describe, layer } from "@effect/vitest"
import { FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import { KOMUNITIN_TOKEN, komunitinError, komunitinPeer, PAYEE_ACCOUNT, PAYER_ACCOUNT } from "./peers/komunitinPeer.js"
import { debitsOf, sendTransfer, transferCall, transferRowsOf, transfersCommunity, walletOf } from "./transfersKit.js"
import { clearingBalance } from "./writesKit.js"

/**
 * A member's transfer to a Komunitin account through `POST /api/v2/federation/transfers` (decisions D16): the
 * currency read before the debit, the JSON:API transfer exactly as Komunitin's validator takes it, the two-step
 * commit, Komunitin's errors quoted with the debit reversed, and the partner's diagnose route. The peer is the
 * fake Komunitin server of peers/komunitinPeer.ts (fixture 08's currency: 1 h = 100 000 units). Transfer timeout
 * 1 s (FEDERATION_TRANSFER_TIMEOUT).
 */

const JSON_API = "application/vnd.api+json"

const komunitinSetup = (options: { readonly commit?: "direct" | "two_step"; readonly status?: "pending" } = {}) =>
  Effect.gen(function*() {
    const peer = yield* komunitinPeer()
    const c = yield* transfersCommunity({
      protocol: "komunitin",
      baseUrl: peer.url,
      credentials: { access_token: KOMUNITIN_TOKEN },
      settings: {
        currency_code: "TEST",
        payer_account_id: PAYER_ACCOUNT,
        ...(options.commit === undefined ? {} : { commit: options.commit })
      },
      ...(options.status === undefined ? {} : { status: options.status })
    })
    return { ...c, peer, to: { partner_id: c.partner.id, recipient: PAYEE_ACCOUNT, amount: 1.5 } }
  })

type Setup = Effect.Effect.Success<ReturnType<typeof komunitinSetup>>

const calls = (c: Setup) => c.peer.requests.map((r) => `${r.method} ${r.path}`)

/** After a failed transfer: the hours are back, the clearing account at 0, debit and reversal in the ledger. */
const assertReversed = (c: Setup, amount = "1.50") =>
  Effect.gen(function*() {
    assert.strictEqual(yield* walletOf(c.member), 10)
    assert.strictEqual(yield* clearingBalance(c.partner), 0)
    const moves = yield* debitsOf(c.tenant.id)
    assert.deepStrictEqual(moves.map((m) => [m.idempotency_key.split(":")[0], m.amount]), [
      ["federation-out", amount],
      ["federation-out-reversal", amount]
    ])
    assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
  })

/** Refused before any money moved: no row, no debit, nothing posted to Komunitin. */
const assertNothingMoved = (c: Setup) =>
  Effect.gen(function*() {
    assert.deepStrictEqual(yield* transferRowsOf(c.tenant.id), [])
    assert.deepStrictEqual(yield* debitsOf(c.tenant.id), [])
    assert.isFalse(c.peer.requests.some((r) => r.method !== "GET"), calls(c).join(", "))
    assert.strictEqual(yield* walletOf(c.member), 10)
    assert.strictEqual(c.peer.transfers.size, 0)
  })

layer(TestApp({ FEDERATION_TRANSFER_TIMEOUT: "1 second" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "federation outbound transfers (komunitin)",
  (it) => {
    describe("sent and committed", () => {
      it.scoped("direct: reads the currency, posts 150 000 units for 1.5 h as Komunitin takes them, 201 completed", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          const data = yield* sendTransfer(c.member, c.to)
          assert.strictEqual(data.status, "completed")
          assert.strictEqual(data.remote_id, data.uuid, "Komunitin keeps the id we chose")
          assert.strictEqual(data.remote_amount, "150000")
          assert.strictEqual(data.amount, 1.5)
          assert.isNull(data.failure)
          assert.isFalse(data.outcome_unknown)

          assert.deepStrictEqual(calls(c), ["GET /TEST/currency", "POST /TEST/transfers"])
          const [currency, posted] = c.peer.requests
          assert.strictEqual(currency!.headers["authorization"], `Bearer ${KOMUNITIN_TOKEN}`)
          assert.strictEqual(posted!.headers["authorization"], `Bearer ${KOMUNITIN_TOKEN}`)
          assert.strictEqual(posted!.headers["content-type"], JSON_API)
          assert.strictEqual(posted!.headers["accept"], JSON_API)
          assert.strictEqual(
            posted!.raw,
            JSON.stringify({
              data: {
                type: "transfers",
                id: data.uuid,
                attributes: { amount: 150000, meta: { description: "Garden help" }, state: "committed" },
                relationships: {
                  payer: { data: { type: "accounts", id: PAYER_ACCOUNT } },
                  payee: { data: { type: "accounts", id: PAYEE_ACCOUNT } }
                }
              }
            })
          )
          // At Komunitin: committed, the units moved from our payer account to the recipient's.
          assert.strictEqual(c.peer.transfers.get(data.uuid)?.state, "committed")
          assert.strictEqual(c.peer.accounts.get(PAYER_ACCOUNT)?.balance, -150000)
          assert.strictEqual(c.peer.accounts.get(PAYEE_ACCOUNT)?.balance, 150000)
          // Here: the member paid 1.5 h into the partner's clearing account.
          assert.strictEqual(yield* walletOf(c.member), 8.5)
          assert.strictEqual(yield* clearingBalance(c.partner), 1.5)
          assert.deepStrictEqual((yield* debitsOf(c.tenant.id)).map((m) => m.amount), ["1.50"])
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("two_step: created `new`, then the PATCH to `committed`; balances move only at the commit", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup({ commit: "two_step" })
          const data = yield* sendTransfer(c.member, { ...c.to, amount: 0.25, description: "Two-step transfer" })
          assert.strictEqual(data.status, "completed")
          assert.strictEqual(data.remote_amount, "25000")
          assert.deepStrictEqual(calls(c), [
            "GET /TEST/currency",
            "POST /TEST/transfers",
            `PATCH /TEST/transfers/${data.uuid}`
          ])
          const [, created, committed] = c.peer.requests
          assert.deepStrictEqual(created!.json, {
            data: {
              type: "transfers",
              id: data.uuid,
              attributes: { amount: 25000, meta: { description: "Two-step transfer" }, state: "new" },
              relationships: {
                payer: { data: { type: "accounts", id: PAYER_ACCOUNT } },
                payee: { data: { type: "accounts", id: PAYEE_ACCOUNT } }
              }
            }
          })
          assert.strictEqual(committed!.raw, "{\"data\":{\"attributes\":{\"state\":\"committed\"}}}")
          assert.strictEqual(committed!.headers["authorization"], `Bearer ${KOMUNITIN_TOKEN}`)
          assert.strictEqual(committed!.headers["content-type"], JSON_API)
          assert.strictEqual(c.peer.transfers.get(data.uuid)?.state, "committed")
          assert.strictEqual(c.peer.accounts.get(PAYEE_ACCOUNT)?.balance, 25000)
          assert.strictEqual(yield* walletOf(c.member), 9.75)
        }))
    })

    describe("refused before the debit", () => {
      it.scoped("an amount with no whole number of units: 422 AMOUNT_NOT_REPRESENTABLE naming scale and rate", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          c.peer.currency.scale = 0
          c.peer.currency.rate = { n: 1, d: 1 }
          const refused = yield* transferCall(c.member, { ...c.to, amount: 0.5 }).pipe(
            expectError(422, "AMOUNT_NOT_REPRESENTABLE")
          )
          assert.strictEqual(
            refused.message,
            "0.5 h is 1/2 units of TEST (scale 0, rate 1/1: 1 h = 1 units); Komunitin takes whole units only"
          )
          assert.deepStrictEqual(refused.fields, ["amount"])
          assert.deepStrictEqual(calls(c), ["GET /TEST/currency"])
          yield* assertNothingMoved(c)
          // Whole hours go through at these terms: 2 h = 2 units.
          const two = yield* sendTransfer(c.member, { ...c.to, amount: 2 })
          assert.strictEqual(two.remote_amount, "2")
          assert.strictEqual(
            (c.peer.requests[2]!.json as { data: { attributes: { amount: number } } }).data.attributes.amount,
            2
          )
        }))

      it.scoped("a currency that cannot be read: 502 PARTNER_UNAVAILABLE, no debit, nothing posted", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          c.peer.handle = (r) =>
            r.path.endsWith("/currency")
              ? komunitinError(500, "InternalError", "Database unavailable")
              : c.peer.komunitin(r)
          const refused = yield* transferCall(c.member, c.to).pipe(expectError(502, "PARTNER_UNAVAILABLE"))
          assert.strictEqual(
            refused.message,
            "The partner could not be read, nothing was sent: GET /TEST/currency: HTTP 500 InternalError: " +
              "Database unavailable"
          )
          yield* assertNothingMoved(c)
          // Not answering at all is the same refusal.
          c.peer.handle = () => "hang"
          const silent = yield* transferCall(c.member, c.to).pipe(expectError(502, "PARTNER_UNAVAILABLE"))
          assert.match(silent.message, /GET \/TEST\/currency: timeout: no complete answer within 1000 ms$/)
          yield* assertNothingMoved(c)
        }))

      it.scoped("a recipient that is not a Komunitin account UUID: 422 field recipient, nothing read or sent", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          for (const recipient of ["42", "local/123", "TEST0002"]) {
            const refused = yield* transferCall(c.member, { ...c.to, recipient }).pipe(
              expectError(422, "VALIDATION_ERROR")
            )
            assert.deepStrictEqual(refused.fields, ["recipient"])
            assert.strictEqual(refused.message, "must be the UUID of the recipient's Komunitin account")
          }
          assert.deepStrictEqual(c.peer.requests, [])
          yield* assertNothingMoved(c)
        }))
    })

    describe("Komunitin does not take it: failed, Komunitin quoted, the debit reversed", () => {
      it.scoped("400 InsufficientBalance of our payer account", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          c.peer.accounts.get(PAYER_ACCOUNT)!.creditLimit = 100_000
          const data = yield* sendTransfer(c.member, c.to)
          assert.strictEqual(data.status, "failed")
          assert.deepStrictEqual(data.failure, {
            http_status: 400,
            detail: "HTTP 400 InsufficientBalance: Insufficient balance in account TEST0001"
          })
          assert.isFalse(data.outcome_unknown)
          assert.isNull(data.remote_id)
          assert.isNumber(data.reversal_transaction_id)
          assert.strictEqual(c.peer.accounts.get(PAYEE_ACCOUNT)?.balance, 0)
          yield* assertReversed(c)
        }))

      it.scoped("404 for a recipient account Komunitin does not know", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          const unknown = "e4b1f1a2-0000-4000-8000-000000000001"
          const data = yield* sendTransfer(c.member, { ...c.to, recipient: unknown })
          assert.strictEqual(data.status, "failed")
          assert.deepStrictEqual(data.failure, {
            http_status: 404,
            detail: `HTTP 404 NotFound: Account ${unknown} not found`
          })
          yield* assertReversed(c)
        }))

      it.scoped("two_step whose commit is refused: the PATCH's answer quoted, the debit reversed", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup({ commit: "two_step" })
          c.peer.accounts.get(PAYER_ACCOUNT)!.creditLimit = 0
          const data = yield* sendTransfer(c.member, c.to)
          assert.strictEqual(data.status, "failed")
          assert.deepStrictEqual(data.failure, {
            http_status: 400,
            detail: `created as new, then PATCH /TEST/transfers/${data.uuid}: HTTP 400 InsufficientBalance: ` +
              "Insufficient balance in account TEST0001"
          })
          assert.isFalse(data.outcome_unknown)
          assert.deepStrictEqual(calls(c).slice(1).map((x) => x.split(" ")[0]), ["POST", "PATCH"])
          assert.notStrictEqual(c.peer.transfers.get(data.uuid)?.state, "committed")
          yield* assertReversed(c)
        }))

      it.scoped("no answer to the POST within the timeout: failed, outcome unknown, reversed", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          c.peer.handle = (r) => (r.method === "POST" ? "hang" : c.peer.komunitin(r))
          const started = Date.now()
          const data = yield* sendTransfer(c.member, c.to)
          assert.isBelow(Date.now() - started, 4000)
          assert.strictEqual(data.status, "failed")
          assert.isTrue(data.outcome_unknown)
          assert.isNull(data.failure?.http_status)
          assert.match(data.failure!.detail, /^timeout: .*; the outcome at the partner is unknown$/)
          assert.deepStrictEqual(yield* transferRowsOf(c.tenant.id), [
            { id: String(data.id), status: "failed", outcome_unknown: true }
          ])
          yield* assertReversed(c)
        }))
    })

    describe("partner administration", () => {
      it.scoped("diagnose: all five checks hold against Komunitin; /test then makes the pending partner active", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup({ status: "pending" })
          const id = FederationPartnerId.make(c.partner.id)
          const diagnosis = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.isTrue(diagnosis.data.ok)
          assert.deepStrictEqual(diagnosis.data.checks.map((k) => [k.name, k.ok]), [
            ["reachability", true],
            ["currency", true],
            ["auth", true],
            ["account", true],
            ["clock_skew", true]
          ])
          assert.strictEqual(
            diagnosis.data.checks[1]!.detail,
            "TEST (scale 4, rate 1/10: 1 h = 100000 units): 0.01 h = 1000 units"
          )
          assert.isFalse(c.peer.requests.some((r) => r.method !== "GET"), "diagnose only reads")
          const tested = yield* expectOk(c.admin.client.federationPartners.test({ path: { id } }))
          assert.isTrue(tested.data.ok)
          const partner = yield* expectOk(c.admin.client.federationPartners.get({ path: { id } }))
          assert.strictEqual(partner.data.status, "active")
        }))

      it.scoped("diagnose: a scale too small for 0.01 h fails `currency`, naming the scale", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          c.peer.currency.scale = 1
          c.peer.currency.rate = { n: 1, d: 1 }
          const id = FederationPartnerId.make(c.partner.id)
          const diagnosis = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.isFalse(diagnosis.data.ok)
          const currency = diagnosis.data.checks.find((k) => k.name === "currency")!
          assert.isFalse(currency.ok)
          assert.strictEqual(
            currency.detail,
            "0.01 h is 1/10 units of TEST (scale 1, rate 1/1: 1 h = 10 units); Komunitin takes whole units " +
              "only, so at scale 1 our 0.01 h cannot be sent"
          )
          assert.deepStrictEqual(diagnosis.data.checks.filter((k) => !k.ok).map((k) => k.name), ["currency"])
        }))

      it.scoped("a komunitin partner needs access_token, the partner's currency code and a payer account UUID", () =>
        Effect.gen(function*() {
          const c = yield* komunitinSetup()
          const refused = yield* c.admin.client.federationPartners.create({
            payload: {
              name: "Komunitin TEST",
              protocol_type: "komunitin",
              base_url: c.peer.url,
              credentials: { api_key: "x" },
              settings: { currency_code: "test", commit: "later" }
            }
          }).pipe(expectError(422, "VALIDATION_ERROR"))
          assert.deepStrictEqual(refused.fields, [
            "credentials.api_key",
            "credentials.access_token",
            "settings.currency_code",
            "settings.payer_account_id",
            "settings.commit"
          ])
          const created = yield* c.admin.client.federationPartners.create({
            payload: {
              name: "Komunitin TEST",
              protocol_type: "komunitin",
              base_url: c.peer.url,
              credentials: {
                access_token: KOMUNITIN_TOKEN,
                komunitin_public_keys: "GAC43NE5IG2ACKONXRCTFXO4H2VWJ3WIRUOGDJGFZ7QSPZT65SV7VGAD"
              },
              settings: { currency_code: "TEST", payer_account_id: PAYER_ACCOUNT, commit: "two_step" }
            },
            withResponse: true
          }).pipe(expectStatus(201))
          assert.deepStrictEqual(created.data.credentials, { access_token: true, komunitin_public_keys: true })
        }))
    })
  }
)
