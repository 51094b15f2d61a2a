import { assert, describe, layer } from "@effect/vitest"
import { accountCodeOf, defaultCurrencyCode, FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { nextHash } from "../../packages/server/src/federation/creditcommons/HashChain.js"
import { asJson, expectOk, expectStatus } from "../fixtures/client.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"
import { ccSettings, OUR_NODE_PATH, PEER_NODE_PATH, relaysOf, relayTo, SEED, storedHash } from "./creditCommonsKit.js"
import { creditCommonsPeer } from "./peers/creditCommonsPeer.js"
import type { PeerRequest } from "./peers/fakePeer.js"
import { assertReversed, debitsOf, sendTransfer, transferCall, transfersCommunity, walletOf } from "./transfersKit.js"
import { clearingBalance } from "./writesKit.js"

/**
 * `POST /api/v2/federation/transfers` to a Credit Commons partner (decisions D16), against a fake Komunitin node
 * that checks `cc-node`/`last-hash` and keeps its own chain: the relay on the wire, the chain on both sides, and
 * the reversal when the node refuses or does not answer. The transfer timeout is 1 s here.
 */

const RECIPIENT = "trunk/branch/twig/alice"

/** A Komunitin node `trunk` that takes `branch2` (us) as its trunkward peer, and our community with it as partner. */
const ccSetup = (options: { readonly fund?: number } = {}) =>
  Effect.gen(function*() {
    const peer = yield* creditCommonsPeer({ seed: SEED, trunkwardNode: "branch2", peerNodePath: PEER_NODE_PATH })
    const c = yield* transfersCommunity({
      protocol: "credit_commons",
      baseUrl: peer.baseUrl,
      credentials: { hash_seed: SEED },
      settings: ccSettings,
      partnerName: "Trunk",
      ...(options.fund === undefined ? {} : { fund: options.fund })
    })
    const code = defaultCurrencyCode(c.tenant.id)
    return {
      ...c,
      peer,
      code,
      memberCode: accountCodeOf(code, c.member.id),
      toAlice: { partner_id: c.partner.id, recipient: RECIPIENT, amount: 2.5 }
    }
  })

const relaysSent = (requests: ReadonlyArray<PeerRequest>) =>
  requests.filter((r) => r.method === "POST" && r.path.endsWith("/transaction/relay"))

layer(TestApp({ FEDERATION_TRANSFER_TIMEOUT: "1 second" }), { excludeTestServices: true, timeout: "180 seconds" })(
  "federation outbound transfers (Credit Commons)",
  (it) => {
    describe("success", () => {
      it.scoped("relays Komunitin's transaction with cc-node and last-hash; both chains advance alike", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          const data = asJson(yield* sendTransfer(c.member, c.toAlice)) as Record<string, unknown>
          assert.strictEqual(data["status"], "completed")
          assert.strictEqual(data["remote_id"], data["uuid"])
          assert.strictEqual(data["remote_amount"], "2.5")
          assert.isNull(data["failure"])

          const [sent, ...others] = c.peer.peer.requests
          assert.strictEqual(others.length, 0)
          assert.strictEqual(sent!.method, "POST")
          assert.strictEqual(sent!.path, "/TEST/cc/transaction/relay")
          assert.strictEqual(sent!.headers["cc-node"], "branch2")
          assert.strictEqual(sent!.headers["last-hash"], SEED)
          assert.strictEqual(sent!.headers["content-type"], "application/json")
          // Fixture 17's shape: version 1, state V, Komunitin's workflow, our member as `<our_node_path>/<code>`.
          const relay = {
            version: 1,
            uuid: data["uuid"],
            state: "V",
            workflow: "|P-PC+CX+",
            entries: [{
              payee: RECIPIENT,
              payer: `${OUR_NODE_PATH}/${c.memberCode}`,
              quant: 2.5,
              description: "Garden help",
              metadata: {}
            }]
          }
          assert.strictEqual(sent!.raw, JSON.stringify(relay))
          const h1 = nextHash(SEED, relay as never)
          assert.strictEqual(c.peer.lastHash, h1)
          assert.strictEqual(yield* storedHash(c.partner.id), h1)
          assert.deepStrictEqual(
            (yield* relaysOf(c.partner.id)).map((r) => [r.uuid, r.direction, r.hash_before, r.hash_after, r.net_cents]),
            [[data["uuid"], "out", SEED, h1, "-250"]]
          )
          assert.strictEqual(yield* walletOf(c.member), 7.5)
          assert.strictEqual(yield* clearingBalance(c.partner), 2.5)
          const shown = yield* expectOk(
            c.admin.client.federationPartners.get({ path: { id: FederationPartnerId.make(c.partner.id) } })
          )
          assert.deepStrictEqual(shown.data.cc, { last_hash: h1 })

          // The next relay builds on the new hash; a fraction of an hour goes as a JSON number.
          const second = asJson(
            yield* sendTransfer(c.member, { ...c.toAlice, amount: 0.1, description: "Tea" })
          ) as Record<string, unknown>
          assert.strictEqual(second["status"], "completed")
          const [, next] = relaysSent(c.peer.peer.requests)
          assert.strictEqual(next!.headers["last-hash"], h1)
          assert.strictEqual((next!.json as { entries: Array<{ quant: unknown }> }).entries[0]!.quant, 0.1)
          assert.strictEqual(c.peer.lastHash, yield* storedHash(c.partner.id))
          assert.strictEqual(c.peer.accepted.length, 2)

          // The account summary the partner reads shows what went out.
          const summary = yield* rawRequest("GET", `/api/v1/federation/${c.code}/cc/account?acc_path=${c.memberCode}`, {
            headers: { "cc-node": "trunk", "last-hash": c.peer.lastHash }
          })
          assert.deepStrictEqual(summary.body, {
            trades: 2,
            entries: 2,
            gross_in: 0,
            gross_out: 2.6,
            partners: 1,
            pending: 0,
            balance: -2.6
          })
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("the node took the relay but its answer was lost: its chain says so, the transfer completes", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          c.peer.after = (answer, request) => request.method === "POST" ? "hang" : answer
          const data = asJson(yield* sendTransfer(c.member, c.toAlice)) as Record<string, unknown>
          assert.strictEqual(data["status"], "completed", JSON.stringify(data))
          assert.strictEqual(data["outcome_unknown"], false)
          // The relay, then a read of the node's chain with the hash after it, which the node accepted.
          const [relay, probe] = c.peer.peer.requests
          assert.strictEqual(relay!.method, "POST")
          assert.strictEqual(probe!.method, "GET")
          assert.strictEqual(probe!.path, "/TEST/cc/")
          assert.strictEqual(probe!.headers["last-hash"], c.peer.lastHash)
          assert.strictEqual(yield* storedHash(c.partner.id), c.peer.lastHash)
          assert.strictEqual(yield* walletOf(c.member), 7.5)
        }))
    })

    describe("failure and compensation", () => {
      it.scoped("a refusal (the node's 401, a 500) fails the transfer, reverses the debit and keeps the chain", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          c.peer.lastHash = "somewhere-else"
          const res = yield* transferCall(c.member, c.toAlice).pipe(expectStatus(201))
          const data = asJson(res.data) as Record<string, unknown>
          assert.strictEqual(data["status"], "failed")
          assert.deepStrictEqual(data["failure"], {
            http_status: 401,
            detail: "HTTP 401: {\"errors\":[\"value of last-hash header \\\"trunk\\\" does not match our records.\"]}"
          })
          assert.strictEqual(data["outcome_unknown"], false)
          yield* assertReversed(c, 10)
          assert.strictEqual(yield* storedHash(c.partner.id), SEED)
          assert.deepStrictEqual(yield* relaysOf(c.partner.id), [])

          c.peer.lastHash = SEED
          c.peer.after = (answer, request) =>
            request.method === "POST" ? { status: 500, body: { errors: ["boom"] } } : answer
          const broken = asJson(yield* sendTransfer(c.member, c.toAlice)) as Record<string, unknown>
          assert.strictEqual(broken["status"], "failed")
          assert.deepStrictEqual(broken["failure"], { http_status: 500, detail: "HTTP 500: {\"errors\":[\"boom\"]}" })
          // Only a 2xx advances our chain (this node advanced its own, and the two now differ: the node misbehaved).
          assert.strictEqual(yield* storedHash(c.partner.id), SEED)
          assert.strictEqual(yield* walletOf(c.member), 10)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("no answer, and the node's chain is unchanged: failed, reversed, not in doubt", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          const own = c.peer.peer.handle
          c.peer.peer.handle = (request) => (request.method === "POST" ? "hang" : own(request))
          const data = asJson(yield* sendTransfer(c.member, c.toAlice)) as Record<string, unknown>
          assert.strictEqual(data["status"], "failed")
          assert.strictEqual(data["outcome_unknown"], false)
          const failure = data["failure"] as { http_status: number | null; detail: string }
          assert.isNull(failure.http_status)
          assert.match(
            failure.detail,
            /^timeout: .*; the partner still holds our last hash: it did not take the relay$/
          )
          yield* assertReversed(c, 10)
          assert.strictEqual(yield* storedHash(c.partner.id), SEED)
          assert.strictEqual(c.peer.lastHash, SEED)
        }))

      it.scoped("an unreachable node fails before anything is in doubt; a bad recipient is 422", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          yield* c.admin.client.federationPartners.update({
            path: { id: FederationPartnerId.make(c.partner.id) },
            payload: { base_url: "http://127.0.0.1:9/TEST/cc" }
          })
          const data = asJson(yield* sendTransfer(c.member, c.toAlice)) as Record<string, unknown>
          assert.strictEqual(data["status"], "failed")
          assert.strictEqual(data["outcome_unknown"], false)
          yield* assertReversed(c, 10)

          for (const recipient of ["alice", "trunk/", "/alice", "trunk/my alice"]) {
            const res = yield* rawRequest("POST", "/api/v2/federation/transfers", {
              headers: { ...c.member.headers, "idempotency-key": randomUUID() },
              body: JSON.stringify({ partner_id: c.partner.id, recipient, amount: 1, description: "" })
            })
            assert.strictEqual(res.status, 422, `${recipient}: ${res.text}`)
            assert.strictEqual((res.body as { errors: Array<{ field: string }> }).errors[0]!.field, "recipient")
          }
          assert.strictEqual(relaysSent(c.peer.peer.requests).length, 0)
        }))
    })

    describe("the chain under concurrency", () => {
      it.scoped("outbound transfers and inbound relays at once: the chain never forks", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup({ fund: 20 })
          const outbound = [1, 2, 3, 4].map((i) =>
            Effect.asVoid(Effect.either(transferCall(c.member, { ...c.toAlice, amount: i * 0.5 })))
          )
          const inbound = [1, 2, 3, 4].map((i) =>
            Effect.map(
              c.peer.relayTo(c.code, relayTo(c.memberCode, i * 0.25, randomUUID(), `From alice ${i}`)),
              (res) => res.status
            )
          )
          const [, inboundStatuses] = yield* Effect.all([
            Effect.all(outbound, { concurrency: "unbounded" }),
            Effect.all(inbound, { concurrency: "unbounded" })
          ], { concurrency: "unbounded" })
          // Both sides hold the same hash, and it is the end of one chain of every relay that went through.
          const stored = yield* storedHash(c.partner.id)
          assert.strictEqual(c.peer.lastHash, stored)
          const relays = yield* relaysOf(c.partner.id)
          let hash = SEED
          const ordered: Array<string> = []
          while (ordered.length < relays.length) {
            const step = relays.find((r) => r.hash_before === hash)
            assert.isDefined(step, `no relay continues the chain at ${hash}`)
            ordered.push(step!.uuid)
            hash = step!.hash_after
          }
          assert.strictEqual(hash, stored)

          // Every outbound transfer that completed is a relay the node accepted; every failed one was reversed.
          const transfers = yield* expectOk(c.member.client.federationTransfers.list({ urlParams: {} }))
          const completed = transfers.data.filter((t) => t.status === "completed").map((t) => t.uuid).sort()
          assert.deepStrictEqual(c.peer.accepted.map((t) => t.uuid).sort(), completed)
          assert.strictEqual(transfers.data.length, 4)
          const inboundOk = inboundStatuses.filter((s) => s === 201).length
          assert.isTrue(inboundStatuses.every((s) => s === 201 || s === 401), inboundStatuses.join(","))
          assert.strictEqual(relays.filter((r) => r.direction === "in").length, inboundOk)
          assert.strictEqual(relays.filter((r) => r.direction === "out").length, completed.length)
          assert.isTrue(completed.length + inboundOk >= 2, `${completed.length} out, ${inboundOk} in`)

          const sentHours = transfers.data.filter((t) => t.status === "completed").reduce((s, t) => s + t.amount, 0)
          const receivedCents = relays.filter((r) => r.direction === "in").reduce((s, r) => s + Number(r.net_cents), 0)
          assert.strictEqual(yield* walletOf(c.member), (2000 - Math.round(sentHours * 100) + receivedCents) / 100)
          const moves = yield* debitsOf(c.tenant.id)
          assert.strictEqual(moves.length, 4 + transfers.data.filter((t) => t.status === "failed").length)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))

      it.scoped("parallel outbound transfers queue on the chain: all complete, in one chain", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup({ fund: 20 })
          const results = yield* Effect.forEach(
            [1, 2, 3, 4, 5],
            (i) => sendTransfer(c.member, { ...c.toAlice, amount: i }),
            { concurrency: "unbounded" }
          )
          assert.deepStrictEqual(results.map((r) => r.status), Array(5).fill("completed"))
          assert.strictEqual(c.peer.accepted.length, 5)
          assert.strictEqual(yield* storedHash(c.partner.id), c.peer.lastHash)
          assert.strictEqual(yield* walletOf(c.member), 5)
          assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
        }))
    })

    describe("diagnose", () => {
      it.scoped("reachability, auth, hash_chain and clock_skew quote the node; a stale hash fails only hash_chain", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          const id = FederationPartnerId.make(c.partner.id)
          const ok = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.isTrue(ok.data.ok, JSON.stringify(ok.data))
          assert.deepStrictEqual(ok.data.checks.map((k) => [k.name, k.ok]), [
            ["reachability", true],
            ["auth", true],
            ["hash_chain", true],
            ["clock_skew", true]
          ])
          const welcome = "HTTP 200: {\"message\":\"Welcome to the Credit Commons federation protocol.\"}"
          assert.strictEqual(ok.data.checks[0]!.detail, welcome)
          assert.strictEqual(ok.data.checks[2]!.detail, `last-hash ${SEED} accepted; ${welcome}`)
          const [probe] = c.peer.peer.requests
          assert.strictEqual(probe!.method, "GET")
          assert.strictEqual(probe!.headers["cc-node"], "branch2")
          assert.strictEqual(probe!.headers["last-hash"], SEED)

          c.peer.lastHash = "moved-on"
          const stale = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.isFalse(stale.data.ok)
          assert.deepStrictEqual(stale.data.checks.map((k) => [k.name, k.ok]), [
            ["reachability", true],
            ["auth", true],
            ["hash_chain", false],
            ["clock_skew", true]
          ])
          assert.include(stale.data.checks[2]!.detail, "does not match our records.")
          // Nothing was written or sent: no chain row, only reads at the node.
          assert.isUndefined(yield* storedHash(c.partner.id))
          assert.isTrue(c.peer.peer.requests.every((r) => r.method === "GET"))
        }))

      it.scoped("a node that does not take our cc-node fails auth; unreachable fails reachability", () =>
        Effect.gen(function*() {
          const peer = yield* creditCommonsPeer({ seed: SEED, trunkwardNode: "someone-else", peerNodePath: "trunk" })
          const c = yield* transfersCommunity({
            protocol: "credit_commons",
            baseUrl: peer.baseUrl,
            credentials: { hash_seed: SEED },
            settings: ccSettings
          })
          const id = FederationPartnerId.make(c.partner.id)
          const res = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.deepStrictEqual(res.data.checks.map((k) => [k.name, k.ok]), [
            ["reachability", true],
            ["auth", false],
            ["hash_chain", false],
            ["clock_skew", true]
          ])
          assert.strictEqual(
            res.data.checks[1]!.detail,
            "HTTP 401: {\"errors\":[\"cc-node \\\"branch2\\\" is not our trunkward node.\"]}"
          )

          yield* c.admin.client.federationPartners.update({
            path: { id },
            payload: { base_url: "http://127.0.0.1:9/TEST/cc" }
          })
          const down = yield* expectOk(c.admin.client.federationPartners.diagnose({ path: { id } }))
          assert.isFalse(down.data.ok)
          assert.deepStrictEqual(down.data.checks.map((k) => k.ok), [false, false, false, false])
        }))

      it.scoped("partner settings are checked on create: node paths required (422 settings.<k>)", () =>
        Effect.gen(function*() {
          const c = yield* ccSetup()
          const create = (settings: Record<string, unknown>) =>
            rawRequest("POST", "/api/v2/admin/federation/partners", {
              headers: c.admin.headers,
              body: JSON.stringify({
                name: "Another trunk",
                protocol_type: "credit_commons",
                base_url: "https://cc.example.org/TEST/cc",
                credentials: { hash_seed: "s" },
                settings
              })
            })
          const missing = yield* create({ our_node_path: OUR_NODE_PATH })
          assert.strictEqual(missing.status, 422, missing.text)
          assert.deepInclude((missing.body as { errors: Array<unknown> }).errors, {
            code: "VALIDATION_ERROR",
            field: "settings.peer_node_path",
            message: "is required for credit_commons partners"
          })
          const spaced = yield* create({ our_node_path: "trunk/branch 2", peer_node_path: "trunk" })
          assert.strictEqual(spaced.status, 422, spaced.text)
          assert.strictEqual(
            (spaced.body as { errors: Array<{ field: string }> }).errors[0]!.field,
            "settings.our_node_path"
          )
          const fine = yield* create(ccSettings)
          assert.strictEqual(fine.status, 201, fine.text)
        }))
    })
  }
)
