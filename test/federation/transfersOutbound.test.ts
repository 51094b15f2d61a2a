import { assert, describe, layer } from "@effect/vitest"
import { FederationTransferId } from "@timebank/domain"
import { Effect, Fiber } from "effect"
import { randomUUID } from "node:crypto"
import { answerOf, asJson, expectError, expectOk, expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { makePartner } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { changeToggles } from "./inboundKit.js"
import { nativePeer } from "./peers/nativePeer.js"
import {
  assertNothingHappened,
  assertReversed,
  debitsOf,
  sendTransfer,
  transferCall,
  transferRowsOf,
  transfersCommunity,
  walletOf
} from "./transfersKit.js"
import { clearingBalance } from "./writesKit.js"

/**
 * `POST|GET /api/v2/federation/transfers` with a native partner (decisions D16): the debit into the partner's
 * clearing account, the signed call to the partner's `/api/v1/federation/transactions`, and the reversal when the
 * partner refuses, fails or does not answer. The transfer timeout is 1 s here (FEDERATION_TRANSFER_TIMEOUT).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** A native peer and a community whose partner it is; Mia Member has 10 hours. */
const nativeSetup = (
  options: { readonly dialect?: "timebank" | "nexus"; readonly status?: "pending" | "suspended" } = {}
) =>
  Effect.gen(function*() {
    const peer = yield* nativePeer(options.dialect === undefined ? {} : { dialect: options.dialect })
    const c = yield* transfersCommunity({
      baseUrl: peer.url,
      credentials: peer.credentials,
      ...(options.status === undefined ? {} : { status: options.status })
    })
    return { ...c, peer, to42: { partner_id: c.partner.id, recipient: "42", amount: 2.5 } }
  })

layer(TestApp({ FEDERATION_TRANSFER_TIMEOUT: "1 second" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "federation outbound transfers (native)",
  (it) => {
    describe("success", () => {
      it.scoped("debits the member, sends the signed D13 credit to the peer, answers 201 completed", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const account = yield* expectOk(c.member.client.federationAccount.get())
          const started = Math.floor(Date.now() / 1000)
          const res = yield* transferCall(c.member, c.to42).pipe(expectStatus(201))
          const data = asJson(res.data) as Record<string, unknown>
          assert.deepStrictEqual(asJson(res), {
            data: {
              id: data["id"],
              uuid: data["uuid"],
              partner_id: c.partner.id,
              recipient: "42",
              amount: 2.5,
              description: "Garden help",
              status: "completed",
              remote_id: "991",
              remote_amount: "2.5",
              transaction_id: data["transaction_id"],
              reversal_transaction_id: null,
              failure: null,
              outcome_unknown: false,
              created_at: data["created_at"],
              updated_at: data["updated_at"]
            },
            meta: {}
          })
          assert.match(String(data["uuid"]), UUID)
          assert.isNumber(data["transaction_id"])

          // Exactly one call, as a native peer reads it: path, bearer, signature, body.
          assert.strictEqual(c.peer.requests.length, 1)
          assert.deepStrictEqual(c.peer.refusals, [])
          const [sent] = c.peer.requests
          assert.strictEqual(sent!.method, "POST")
          assert.strictEqual(sent!.path, "/api/v1/federation/transactions")
          assert.strictEqual(sent!.headers["authorization"], `Bearer ${c.peer.credentials.api_key}`)
          assert.strictEqual(sent!.headers["content-type"], "application/json")
          assert.strictEqual(sent!.headers["x-federation-platform-id"], c.peer.credentials.api_key.slice(0, 12))
          assert.match(String(sent!.headers["x-federation-nonce"]), UUID)
          assert.match(String(sent!.headers["x-federation-signature"]), /^[0-9a-f]{64}$/)
          const timestamp = Number(sent!.headers["x-federation-timestamp"])
          assert.isTrue(timestamp >= started && timestamp <= started + 5, String(timestamp))
          assert.strictEqual(
            sent!.raw,
            JSON.stringify({
              external_id: data["uuid"],
              recipient_id: 42,
              amount: 2.5,
              description: "Garden help",
              sender: { name: "Mia Member", external_id: account.data.account_code }
            })
          )

          // The wallet paid into the partner's clearing account; the ledger holds.
          assert.strictEqual(yield* walletOf(c.member), 7.5)
          assert.strictEqual(yield* clearingBalance(c.partner), 2.5)
          const history = yield* expectOk(c.member.client.wallet.transactions({ urlParams: {} }))
          assert.deepInclude(asJson(history.data[0]), {
            id: data["transaction_id"],
            type: "federated",
            amount: 2.5,
            sender_id: c.member.id,
            recipient_id: null,
            direction: "out",
            description: "Garden help"
          })
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

          // Detail and list answer the same record.
          const id = FederationTransferId.make(data["id"] as number)
          const one = yield* expectOk(c.member.client.federationTransfers.get({ path: { id } }))
          assert.deepStrictEqual(asJson(one), asJson(res))
          const list = yield* expectOk(c.member.client.federationTransfers.list({ urlParams: {} }))
          assert.deepStrictEqual(asJson(list.data), [data])
          assert.deepStrictEqual(list.meta, { per_page: 20, has_more: false })
        }))

      it.scoped("a NEXUS-style answer (fixtures/nexus/03): the remote id is its transaction_id", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup({ dialect: "nexus" })
          const data = yield* sendTransfer(c.member, { ...c.to42, amount: 2 })
          assert.strictEqual(data.status, "completed")
          assert.strictEqual(data.remote_id, "991")
          assert.strictEqual(data.remote_amount, "2")
          assert.strictEqual((c.peer.requests[0]!.json as { amount: number }).amount, 2)
          assert.strictEqual(yield* walletOf(c.member), 8)
        }))

      it.scoped("lists newest first with a cursor", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const sent = []
          for (const amount of [1, 2, 3]) sent.push(yield* sendTransfer(c.member, { ...c.to42, amount }))
          const first = yield* expectOk(c.member.client.federationTransfers.list({ urlParams: { per_page: 2 } }))
          assert.deepStrictEqual(first.data.map((t) => t.amount), [3, 2])
          assert.isTrue(first.meta.has_more)
          const cursor = sent[1]!.id
          const rest = yield* expectOk(c.member.client.federationTransfers.list({ urlParams: { cursor } }))
          assert.deepStrictEqual(rest.data.map((t) => t.amount), [1])
          assert.isFalse(rest.meta.has_more)
        }))
    })

    describe("the partner does not take it: failed, and the debit reversed", () => {
      it.scoped("a 4xx (unknown recipient at the peer) quotes the answer", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const data = yield* sendTransfer(c.member, { ...c.to42, recipient: "77" })
          assert.strictEqual(data.status, "failed")
          assert.deepStrictEqual(data.failure, {
            http_status: 404,
            detail: "HTTP 404: {\"errors\":[{\"code\":\"NOT_FOUND\",\"message\":\"Member not found\"," +
              "\"field\":\"recipient_id\"}]}"
          })
          assert.isFalse(data.outcome_unknown)
          assert.isNull(data.remote_id)
          assert.isNumber(data.transaction_id)
          assert.isNumber(data.reversal_transaction_id)
          yield* assertReversed(c, 10)
          const history = yield* expectOk(c.member.client.wallet.transactions({ urlParams: {} }))
          assert.deepInclude(history.data[0], {
            id: data.reversal_transaction_id!,
            type: "federated",
            amount: 2.5,
            direction: "in",
            recipient_id: c.member.id
          })
        }))

      it.scoped("a signature the peer refuses (wrong signing secret): 401 quoted", () =>
        Effect.gen(function*() {
          const peer = yield* nativePeer()
          const c = yield* transfersCommunity({
            baseUrl: peer.url,
            credentials: { ...peer.credentials, signing_secret: "tbs_not-the-secret" }
          })
          const data = yield* sendTransfer(c.member, { partner_id: c.partner.id, recipient: "42", amount: 2.5 })
          assert.strictEqual(data.status, "failed")
          assert.strictEqual(data.failure?.http_status, 401)
          assert.include(data.failure?.detail, "SIGNATURE_INVALID")
          assert.deepStrictEqual(peer.refusals, ["SIGNATURE_INVALID"])
          assert.strictEqual(peer.credits.size, 0)
          yield* assertReversed(c, 10)
        }))

      it.scoped("a 5xx", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          c.peer.handle = () => ({ status: 500, body: { errors: [{ code: "SERVER_ERROR", message: "boom" }] } })
          const data = yield* sendTransfer(c.member, c.to42)
          assert.strictEqual(data.status, "failed")
          assert.deepStrictEqual(data.failure, {
            http_status: 500,
            detail: "HTTP 500: {\"errors\":[{\"code\":\"SERVER_ERROR\",\"message\":\"boom\"}]}"
          })
          assert.isFalse(data.outcome_unknown)
          yield* assertReversed(c, 10)
        }))

      it.scoped("no answer within the timeout: failed, the outcome at the partner unknown, reversed", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          c.peer.handle = () => "hang"
          const started = Date.now()
          const data = yield* sendTransfer(c.member, c.to42)
          assert.isBelow(Date.now() - started, 3000)
          assert.strictEqual(c.peer.requests.length, 1)
          assert.strictEqual(data.status, "failed")
          assert.isTrue(data.outcome_unknown)
          assert.isNull(data.failure?.http_status)
          assert.match(data.failure!.detail, /^timeout: .*; the outcome at the partner is unknown$/)
          assert.deepStrictEqual(yield* transferRowsOf(c.tenant.id), [
            { id: String(data.id), status: "failed", outcome_unknown: true }
          ])
          yield* assertReversed(c, 10)
        }))

      it.scoped("a partner that refuses the connection: failed, outcome known, reversed", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const down = yield* transfersCommunity({ baseUrl: "http://127.0.0.1:9", credentials: c.peer.credentials })
          const data = yield* sendTransfer(down.member, { partner_id: down.partner.id, recipient: "42", amount: 2.5 })
          assert.strictEqual(data.status, "failed")
          assert.isFalse(data.outcome_unknown)
          assert.isNull(data.failure?.http_status)
          assert.match(data.failure!.detail, /^request failed: /)
          yield* assertReversed(down, 10)
        }))
    })

    describe("Idempotency-Key", () => {
      it.scoped("the same key and body again: the same transfer, one debit, one call; another body: 409", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const key = randomUUID()
          const first = yield* transferCall(c.member, c.to42, key).pipe(expectStatus(201))
          const again = yield* transferCall(c.member, c.to42, key).pipe(expectStatus(201))
          assert.deepStrictEqual(asJson(again), asJson(first))
          const other = yield* transferCall(c.member, { ...c.to42, amount: 3 }, key).pipe(
            expectError(409, "IDEMPOTENCY_CONFLICT")
          )
          assert.strictEqual(other.message, "This Idempotency-Key was used with a different request")
          assert.strictEqual(c.peer.requests.length, 1)
          assert.strictEqual((yield* debitsOf(c.tenant.id)).length, 1)
          assert.strictEqual(yield* walletOf(c.member), 7.5)
          // The key is the member's own: Otto's same key is a transfer of his (here refused: not opted in).
          yield* transferCall(c.other, c.to42, key).pipe(expectError(403, "FEDERATION_OPT_IN_REQUIRED"))
        }))

      it.scoped("concurrent requests with one key: one debit, one call, every answer the same transfer", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const key = randomUUID()
          const answers = yield* Effect.all(
            Array.from({ length: 6 }, () => transferCall(c.member, c.to42, key).pipe(expectStatus(201))),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(new Set(answers.map((a) => a.data.id)).size, 1)
          assert.isTrue(answers.every((a) => a.data.status === "completed"))
          assert.strictEqual(c.peer.requests.length, 1)
          assert.strictEqual((yield* debitsOf(c.tenant.id)).length, 1)
          assert.strictEqual((yield* transferRowsOf(c.tenant.id)).length, 1)
          assert.strictEqual(yield* walletOf(c.member), 7.5)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("replays arriving while the first is still sending wait for its outcome", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          c.peer.handle = () => "hang"
          const key = randomUUID()
          const first = yield* Effect.fork(transferCall(c.member, c.to42, key).pipe(expectStatus(201)))
          yield* Effect.sleep("300 millis")
          const replays = yield* Effect.all(
            Array.from({ length: 3 }, () => transferCall(c.member, c.to42, key).pipe(expectStatus(201))),
            { concurrency: "unbounded" }
          )
          const answers = [yield* Fiber.join(first), ...replays]
          assert.strictEqual(new Set(answers.map((a) => a.data.id)).size, 1)
          assert.isTrue(answers.every((a) => a.data.status === "failed" && a.data.outcome_unknown))
          assert.strictEqual(c.peer.requests.length, 1)
          yield* assertReversed(c, 10)
        }))
    })

    describe("refusals: nothing recorded, moved or sent", () => {
      it.scoped("a member who has not opted in: 403 FEDERATION_OPT_IN_REQUIRED", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          yield* transferCall(c.other, c.to42).pipe(expectError(403, "FEDERATION_OPT_IN_REQUIRED"))
          yield* assertNothingHappened(c, c.peer, 10)
        }))

      it.scoped("a suspended or pending partner: 409 PARTNER_NOT_ACTIVE", () =>
        Effect.gen(function*() {
          for (const status of ["suspended", "pending"] as const) {
            const c = yield* nativeSetup({ status })
            const refused = yield* transferCall(c.member, c.to42).pipe(expectError(409, "PARTNER_NOT_ACTIVE"))
            assert.deepStrictEqual(refused.fields, ["partner_id"])
            yield* assertNothingHappened(c, c.peer, 10)
          }
        }))

      it.scoped("an unknown partner, or another community's: 404", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const elsewhere = yield* community({ signIn: "token" })
          const theirs = yield* makePartner(elsewhere.tenant, { baseUrl: c.peer.url, credentials: c.peer.credentials })
          for (const partnerId of [theirs.id, theirs.id + 1000]) {
            const refused = yield* transferCall(c.member, { ...c.to42, partner_id: partnerId }).pipe(
              expectError(404, "NOT_FOUND")
            )
            assert.deepStrictEqual(refused.fields, ["partner_id"])
          }
          yield* assertNothingHappened(c, c.peer, 10)
        }))

      it.scoped("a recipient that is not a member id in the native form: 422 field recipient", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          for (const recipient of ["abc", "0", "-3", "007", "4.2", "12345678901234567"]) {
            const refused = yield* transferCall(c.member, { ...c.to42, recipient }).pipe(
              expectError(422, "VALIDATION_ERROR")
            )
            assert.deepStrictEqual(refused.fields, ["recipient"], recipient)
            assert.strictEqual(refused.message, "must be the partner's member id: digits, more than 0")
          }
          yield* assertNothingHappened(c, c.peer, 10)
        }))

      it.scoped("more than the wallet holds: 422 INSUFFICIENT_BALANCE, no transfer row left", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const refused = yield* transferCall(c.member, { ...c.to42, amount: 10.01 }).pipe(
            expectError(422, "INSUFFICIENT_BALANCE")
          )
          assert.deepStrictEqual(refused.fields, ["amount"])
          yield* assertNothingHappened(c, c.peer, 10)
          const list = yield* expectOk(c.member.client.federationTransfers.list({ urlParams: {} }))
          assert.deepStrictEqual(list.data, [])
        }))

      it.scoped("an amount that is not positive hours with 2 decimals: 422 field amount", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          for (const amount of [0, -1, 1.005]) {
            // Raw: the typed client will not encode an amount the contract refuses.
            const res = yield* rawRequest("POST", "/api/v2/federation/transfers", {
              headers: c.member.headers,
              body: JSON.stringify({ partner_id: c.partner.id, recipient: "42", amount, description: "" })
            })
            assert.strictEqual(res.status, 422, JSON.stringify(res.body))
            const errors = (res.body as { errors: ReadonlyArray<{ code: string; field: string }> }).errors
            assert.deepStrictEqual(errors.map((e) => [e.code, e.field]), [["VALIDATION_ERROR", "amount"]])
          }
          yield* assertNothingHappened(c, c.peer, 10)
        }))

      it.scoped("federation off for transactions: 503 FEDERATION_DISABLED with Retry-After", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          yield* changeToggles(c.admin, { transactions: false })
          const answer = yield* answerOf(transferCall(c.member, c.to42))
          assert.strictEqual(answer.status, 503)
          assert.strictEqual(answer.failure?.code, "FEDERATION_DISABLED")
          assert.strictEqual(answer.headers["retry-after"], "3600")
          yield* assertNothingHappened(c, c.peer, 10)
        }))
    })

    describe("reading transfers", () => {
      it.scoped("another member's transfer, or another community's, is 404; their lists do not show it", () =>
        Effect.gen(function*() {
          const c = yield* nativeSetup()
          const data = yield* sendTransfer(c.member, c.to42)
          yield* c.other.client.federationTransfers.get({ path: { id: data.id } }).pipe(expectError(404, "NOT_FOUND"))
          const others = yield* expectOk(c.other.client.federationTransfers.list({ urlParams: {} }))
          assert.deepStrictEqual(others.data, [])
          const elsewhere = yield* community({ signIn: "token" })
          yield* elsewhere.member.client.federationTransfers.get({ path: { id: data.id } }).pipe(
            expectError(404, "NOT_FOUND")
          )
          yield* c.member.client.federationTransfers.get({
            path: { id: FederationTransferId.make(data.id + 1000) }
          }).pipe(expectError(404, "NOT_FOUND"))
        }))
    })
  }
)
