import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, expectOk } from "../fixtures/client.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import { type TimeOverflowPeer, timeoverflowPeer } from "./peers/timeoverflowPeer.js"
import { debitsOf, sendTransfer, transferCall, transferRowsOf, transfersCommunity, walletOf } from "./transfersKit.js"
import { clearingBalance } from "./writesKit.js"

/**
 * Transfers to a TimeOverflow partner (decisions D16, shared/federation/timeoverflow.md §5) through
 * `POST /api/v2/federation/transfers`: the exact `POST /api/v1/transfers` the fork reads (its key, its own partner
 * id, whole seconds), its idempotent replay, and its refusals quoted while the member's debit is reversed.
 */

type PeerOptions = Parameters<typeof timeoverflowPeer>[0]

/** A TimeOverflow peer and a community whose active partner it is; Mia Member has `fund` hours (default 10). */
const setup = (
  options: {
    readonly peer?: PeerOptions
    readonly fund?: number
    readonly credentials?: (peer: TimeOverflowPeer) => Record<string, string>
  } = {}
) =>
  Effect.gen(function*() {
    const peer = yield* timeoverflowPeer(options.peer)
    const c = yield* transfersCommunity({
      protocol: "timeoverflow",
      baseUrl: `${peer.url}/`,
      credentials: options.credentials?.(peer) ?? peer.credentials,
      settings: { remote_partner_id: peer.partnerId },
      ...(options.fund === undefined ? {} : { fund: options.fund })
    })
    return { ...c, peer, to42: { partner_id: c.partner.id, recipient: "42", amount: 1.5 } }
  })

type Setup = Effect.Effect.Success<ReturnType<typeof setup>>

/** The transfer calls the peer received (our outbound webhooks reach it too, at its receive route). */
const transferCalls = (c: Setup) => c.peer.requests.filter((r) => r.path.startsWith("/api/v1/transfers"))

/** After a refused transfer: the money back, the clearing account at 0, the debit and its reversal booked. */
const assertReversed = (c: Setup, hours = 1.5, fund = 10) =>
  Effect.gen(function*() {
    assert.strictEqual(yield* walletOf(c.member), fund)
    assert.strictEqual(yield* clearingBalance(c.partner), 0)
    const amount = hours.toFixed(2)
    assert.deepStrictEqual((yield* debitsOf(c.tenant.id)).map((m) => [m.idempotency_key.split(":")[0], m.amount]), [
      ["federation-out", amount],
      ["federation-out-reversal", amount]
    ])
    assert.deepStrictEqual(c.peer.transfers, [])
    assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
  })

const failedWith = (c: Setup, status: number | null, detail: string) =>
  Effect.gen(function*() {
    const data = yield* sendTransfer(c.member, c.to42)
    assert.strictEqual(data.status, "failed")
    assert.deepStrictEqual(data.failure, { http_status: status, detail })
    assert.isNull(data.remote_id)
    assert.isNumber(data.reversal_transaction_id)
    return data
  })

layer(TestApp({ FEDERATION_TRANSFER_TIMEOUT: "1 second" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "federation outbound transfers (timeoverflow)",
  (it) => {
    describe("success", () => {
      it.scoped("1.5 h is POST /api/v1/transfers of 5400 seconds to TimeOverflow's own partner id, 201 completed", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          const account = yield* expectOk(c.member.client.federationAccount.get())
          const data = yield* sendTransfer(c.member, c.to42)
          assert.deepInclude(data, {
            status: "completed",
            remote_id: "7",
            remote_amount: "5400",
            amount: 1.5,
            failure: null,
            reversal_transaction_id: null,
            outcome_unknown: false
          })

          assert.strictEqual(transferCalls(c).length, 1)
          const [sent] = transferCalls(c)
          assert.strictEqual(sent!.method, "POST")
          // The base URL's trailing slash does not double.
          assert.strictEqual(sent!.path, "/api/v1/transfers")
          assert.strictEqual(sent!.headers["x-federation-api-key"], c.peer.credentials.api_key)
          assert.isUndefined(sent!.headers["authorization"])
          assert.strictEqual(sent!.headers["content-type"], "application/json")
          assert.strictEqual(
            sent!.raw,
            JSON.stringify({
              partner_id: c.peer.partnerId,
              external_transaction_id: data.uuid,
              direction: "inbound",
              local_account_id: 42,
              remote_user_identifier: account.data.account_code,
              amount: 5400,
              reason: "Garden help"
            })
          )
          assert.deepInclude(c.peer.transfers[0], { amount: 5400, direction: "inbound", local_account_id: 42 })
          assert.deepStrictEqual(c.peer.refusals, [])

          assert.strictEqual(yield* walletOf(c.member), 8.5)
          assert.strictEqual(yield* clearingBalance(c.partner), 1.5)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("its idempotent replay (200 with the first record, fixture 03) completes the transfer once", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          // The first answer is lost on the way: the peer sees the request twice and answers the second with 200.
          c.peer.handle = (request) => {
            c.peer.behave(request)
            return c.peer.behave(request)
          }
          const data = yield* sendTransfer(c.member, c.to42)
          assert.deepInclude(data, { status: "completed", remote_id: "7", remote_amount: "5400" })
          assert.strictEqual(c.peer.transfers.length, 1)
          assert.strictEqual(yield* walletOf(c.member), 8.5)
        }))

      it.scoped("100 h is TimeOverflow's maximum, 360 000 seconds; 100.01 h is 422 AMOUNT_NOT_REPRESENTABLE", () =>
        Effect.gen(function*() {
          const c = yield* setup({ fund: 250 })
          const refused = yield* transferCall(c.member, { ...c.to42, amount: 100.01 }).pipe(
            expectError(422, "AMOUNT_NOT_REPRESENTABLE")
          )
          assert.deepStrictEqual(refused.fields, ["amount"])
          assert.include(refused.message, "TimeOverflow takes at most 100 hours (360000 seconds)")
          assert.deepStrictEqual(yield* transferRowsOf(c.tenant.id), [])
          assert.deepStrictEqual(yield* debitsOf(c.tenant.id), [])
          assert.strictEqual(transferCalls(c).length, 0)
          assert.strictEqual(yield* walletOf(c.member), 250)

          const most = yield* sendTransfer(c.member, { ...c.to42, amount: 100 })
          assert.deepInclude(most, { status: "completed", remote_amount: "360000" })
          assert.strictEqual((transferCalls(c)[0]!.json as { amount: number }).amount, 360_000)
          assert.strictEqual(yield* walletOf(c.member), 150)
        }))

      it.scoped("a recipient that is not a TimeOverflow account id is 422 recipient, nothing sent", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          for (const recipient of ["abc", "0", "-4", "4.5", "alice@partner.example"]) {
            const refused = yield* transferCall(c.member, { ...c.to42, recipient }).pipe(
              expectError(422, "VALIDATION_ERROR")
            )
            assert.deepStrictEqual(refused.fields, ["recipient"], recipient)
          }
          assert.strictEqual(transferCalls(c).length, 0)
          assert.deepStrictEqual(yield* debitsOf(c.tenant.id), [])
        }))
    })

    describe("TimeOverflow refuses: failed with its answer quoted, the debit reversed", () => {
      it.scoped("400: more seconds than its FEDERATION_MAX_TRANSFER_AMOUNT (fixture 05)", () =>
        Effect.gen(function*() {
          const c = yield* setup({ peer: { maxSeconds: 3600 } })
          yield* failedWith(c, 400, "HTTP 400: {\"success\":false,\"error\":\"amount exceeds maximum (3600 seconds)\"}")
          assert.deepStrictEqual(c.peer.refusals, ["amount exceeds maximum (3600 seconds)"])
          yield* assertReversed(c)
        }))

      it.scoped("401: a key it does not know (fixture 06, no `success` key)", () =>
        Effect.gen(function*() {
          const c = yield* setup({ credentials: (peer) => ({ ...peer.credentials, api_key: "to_fed_wrong" }) })
          yield* failedWith(c, 401, "HTTP 401: {\"error\":\"Unauthorized\",\"message\":\"Invalid or expired API key\"}")
          yield* assertReversed(c)
        }))

      it.scoped("403: a key without the transactions permission (fixture 07)", () =>
        Effect.gen(function*() {
          const c = yield* setup({ peer: { permissions: { listings: true } } })
          yield* failedWith(
            c,
            403,
            "HTTP 403: {\"error\":\"Forbidden\",\"message\":\"API key lacks 'transactions' permission\"}"
          )
          yield* assertReversed(c)
        }))

      it.scoped("404: an account it does not have", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          const data = yield* sendTransfer(c.member, { ...c.to42, recipient: "77" })
          assert.deepStrictEqual(data.failure, {
            http_status: 404,
            detail: "HTTP 404: {\"success\":false,\"error\":\"Resource not found\"}"
          })
          yield* assertReversed(c)
        }))

      it.scoped("429: past its rate limit per key and minute (fixture 08)", () =>
        Effect.gen(function*() {
          const c = yield* setup({ peer: { rateLimit: 1 } })
          const first = yield* sendTransfer(c.member, { ...c.to42, amount: 1 })
          assert.strictEqual(first.status, "completed")
          const second = yield* sendTransfer(c.member, c.to42)
          assert.deepStrictEqual(second.failure, {
            http_status: 429,
            detail: "HTTP 429: {\"success\":false,\"error\":\"Rate limit exceeded\"," +
              "\"message\":\"Maximum 1 requests per minute\"}"
          })
          assert.strictEqual(transferCalls(c)[1]!.headers["x-federation-api-key"], c.peer.credentials.api_key)
          assert.strictEqual(yield* walletOf(c.member), 9)
          assert.strictEqual(yield* clearingBalance(c.partner), 1)
          assert.strictEqual((yield* debitsOf(c.tenant.id)).length, 3)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("500: its `Transfer failed`", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          c.peer.handle = () => ({ status: 500, body: { success: false, error: "Transfer failed" } })
          const data = yield* failedWith(c, 500, "HTTP 500: {\"success\":false,\"error\":\"Transfer failed\"}")
          assert.isFalse(data.outcome_unknown)
          yield* assertReversed(c)
        }))

      it.scoped("a 2xx whose record is not completed did not credit its member", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          const body = { success: true, data: { federation_transaction_id: 9, status: "cancelled", amount: 5400 } }
          c.peer.handle = () => ({ status: 200, body })
          const data = yield* failedWith(c, 200, `HTTP 200: ${JSON.stringify(body)}`)
          assert.isFalse(data.outcome_unknown)
          yield* assertReversed(c)
        }))

      it.scoped("no answer within the timeout: failed, the outcome at TimeOverflow unknown, reversed", () =>
        Effect.gen(function*() {
          const c = yield* setup()
          c.peer.handle = () => "hang"
          const data = yield* sendTransfer(c.member, c.to42)
          assert.strictEqual(data.status, "failed")
          assert.isTrue(data.outcome_unknown)
          assert.isNull(data.failure?.http_status)
          assert.match(data.failure!.detail, /^timeout: .*; the outcome at TimeOverflow is unknown$/)
          yield* assertReversed(c)
        }))
    })
  }
)
