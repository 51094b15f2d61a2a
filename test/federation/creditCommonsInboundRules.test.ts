import { assert, describe, layer } from "@effect/vitest"
import { FederationPartnerId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { nextHash } from "../../packages/server/src/federation/creditcommons/HashChain.js"
import { makePartner } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  ccCall,
  ccCommunity,
  ccSettings,
  OUR_NODE_PATH,
  relaysOf,
  relayTo,
  SEED,
  storedHash,
  walletOf
} from "./creditCommonsKit.js"
import { changeToggles } from "./inboundKit.js"
import { ERRORS } from "./peers/creditCommonsFixtures.js"
import { clearingBalance } from "./writesKit.js"

/**
 * Our Credit Commons node (decisions D16): what a relay must be to credit anyone, which community `{CODE}` names and
 * which partner `cc-node` names, the switches, and the partner's view of the chain.
 */

const AUTH = { ccNode: "trunk", lastHash: SEED }
const partnerId = (id: number) => FederationPartnerId.make(id)

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Credit Commons node, inbound rules", (it) => {
  describe("what a relay must be", () => {
    it.effect("net gain ≤ 0, no or two local parties, two local accounts, bad amounts: 400; unknown account: 404", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const us = (code: string) => `${OUR_NODE_PATH}/${code}`
        const entry = (payer: string, payee: string, quant: number) => ({ payer, payee, quant, description: "x" })
        const tx = (...entries: ReadonlyArray<unknown>) => ({
          uuid: randomUUID(),
          state: "V",
          workflow: "|P-PC+CX+",
          entries
        })
        const cases: ReadonlyArray<readonly [unknown, number, string]> = [
          [tx(entry(us(c.memberCode), "trunk/x/bob", 2)), 400, "Net gain must be positive for incoming transaction"],
          [
            tx(entry("trunk/x/bob", us(c.memberCode), 1), entry(us(c.memberCode), "trunk/admin", 1)),
            400,
            "Net gain must be positive for incoming transaction"
          ],
          [tx(entry("trunk/x/bob", "trunk/y/ann", 1)), 400, "Payer and Payee cannot both be remote"],
          [tx(entry(us(c.otherCode), us(c.memberCode), 1)), 400, "Payer and Payee cannot both be local"],
          [
            tx(entry("trunk/x/bob", us(c.memberCode), 1), entry("trunk/x/bob", us(c.otherCode), 1)),
            400,
            "All entries must be to or from the same local account"
          ],
          [
            tx(entry("trunk/x/bob", us(c.memberCode), 1.234)),
            400,
            "entries.0.quant: must have at most 2 decimals (hours)"
          ],
          [tx(entry("trunk/x/bob", us(c.memberCode), -1)), 400, "entries.0.quant: must not be negative"],
          [tx(), 400, "entries: must not be empty"],
          [{ ...tx(entry("trunk/x/bob", us(c.memberCode), 1)), state: "P" }, 400, "state: must be V or C"],
          [
            tx(entry("trunk/x/bob", us(`${c.code}9999999`), 1)),
            404,
            `local party ${c.code}9999999 not found on ${OUR_NODE_PATH}`
          ],
          // Otto Other has not opted in to federation: partners cannot find him.
          [
            tx(entry("trunk/x/bob", us(c.otherCode), 1)),
            404,
            `local party ${c.otherCode} not found on ${OUR_NODE_PATH}`
          ],
          [tx(entry("trunk/x/bob", `trunk/branch3/${c.memberCode}`, 1)), 400, "Payer and Payee cannot both be remote"]
        ]
        for (const [body, status, message] of cases) {
          const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body })
          assert.strictEqual(res.status, status, `${JSON.stringify(body)}: ${res.text}`)
          assert.deepStrictEqual(res.body, { errors: [message] })
        }
        // A body that is not JSON at all.
        const garbled = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ...AUTH,
          headers: { "content-type": "application/json" }
        })
        assert.strictEqual(garbled.status, 400, garbled.text)
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(yield* walletOf(c.other), 0)
        assert.isUndefined(yield* storedHash(c.partner.id))
        assert.deepStrictEqual(yield* relaysOf(c.partner.id), [])
        // An invalid body under a stale hash is refused for the hash first.
        const stale = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ccNode: "trunk",
          lastHash: "nope",
          body: tx()
        })
        assert.strictEqual(stale.status, 401)
      }))

    it.effect("past the partner's credit limit: 400, nothing moves", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity({ settings: { credit_limit: 1 } })
        const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ...AUTH,
          body: relayTo(c.memberCode, 2, randomUUID())
        })
        assert.strictEqual(res.status, 400, res.text)
        assert.deepStrictEqual(res.body, {
          errors: ["This relay would take the partner's clearing account past its credit limit."]
        })
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
        const within = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ...AUTH,
          body: relayTo(c.memberCode, 1, randomUUID())
        })
        assert.strictEqual(within.status, 201, within.text)
        assert.strictEqual(yield* clearingBalance(c.partner), -1)
      }))

    it.effect("account: acc_path is required (400); an unknown or non-opted-in account is 404", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const none = yield* ccCall("GET", `${c.cc}/account`, AUTH)
        assert.strictEqual(none.status, 400)
        assert.deepStrictEqual(none.body, { errors: ["acc_path query parameter is required."] })
        for (const code of [c.otherCode, "TEST0002"]) {
          const res = yield* ccCall("GET", `${c.cc}/account?acc_path=${code}`, AUTH)
          assert.strictEqual(res.status, 404)
          assert.deepStrictEqual(res.body, { errors: [`Account ${code} not found`] })
        }
      }))
  })

  describe("which community and which partner", () => {
    it.effect("an unknown CODE is 404; another community's CODE knows neither this partner nor its chain", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const unknown = yield* ccCall("POST", "/api/v1/federation/ZZZZ/cc/transaction/relay", {
          ...AUTH,
          body: relayTo(c.memberCode, 1, randomUUID())
        })
        assert.strictEqual(unknown.status, 404, unknown.text)
        assert.deepStrictEqual(unknown.body, { errors: ["Currency ZZZZ not found"] })

        // Another community with a partner of its own, on another seed: our member is not there, our hash not valid.
        const other = yield* ccCommunity({ seed: "elsewhere" })
        const res = yield* ccCall("POST", `${other.cc}/transaction/relay`, {
          ...AUTH,
          body: relayTo(c.memberCode, 1, randomUUID())
        })
        assert.strictEqual(res.status, 401)
        assert.deepStrictEqual(res.body, {
          errors: ["value of last-hash header \"trunk\" does not match our records."]
        })
        const wrongMember = yield* ccCall("POST", `${other.cc}/transaction/relay`, {
          ccNode: "trunk",
          lastHash: "elsewhere",
          body: relayTo(c.memberCode, 1, randomUUID())
        })
        assert.strictEqual(wrongMember.status, 404)
        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.strictEqual(yield* walletOf(other.member), 0)
      }))

    it.effect("switches off: 503 with Retry-After; a suspended partner is not grafted; two partners on one node: 409", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        yield* changeToggles(c.admin, { transactions: false })
        const off = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ...AUTH,
          body: relayTo(c.memberCode, 1, randomUUID())
        })
        assert.strictEqual(off.status, 503, off.text)
        assert.deepStrictEqual(off.body, { errors: ["Federation is not available for this request"] })
        assert.strictEqual(off.headers["retry-after"], "3600")
        const welcome = yield* ccCall("GET", `${c.cc}/`, AUTH)
        assert.strictEqual(welcome.status, 503)
        yield* changeToggles(c.admin, { transactions: true })

        yield* c.admin.client.federationPartners.suspend({ path: { id: partnerId(c.partner.id) } })
        const suspended = yield* ccCall("GET", `${c.cc}/`, AUTH)
        assert.strictEqual(suspended.status, 401)
        assert.deepStrictEqual(suspended.body, ERRORS.notGrafted)
        yield* c.admin.client.federationPartners.reactivate({ path: { id: partnerId(c.partner.id) } })

        const twin = yield* makePartner(c.tenant, {
          protocol: "credit_commons",
          credentials: { hash_seed: "other" },
          settings: { ...ccSettings, peer_node_path: "forest/trunk" }
        })
        const ambiguous = yield* ccCall("GET", `${c.cc}/`, AUTH)
        assert.strictEqual(ambiguous.status, 409)
        assert.deepStrictEqual(ambiguous.body, { errors: ["cc-node \"trunk\" names more than one of our partners."] })
        // The whole path names one of them.
        const named = yield* ccCall("GET", `${c.cc}/`, { ccNode: "forest/trunk", lastHash: "other" })
        assert.strictEqual(named.status, 200, named.text)
        assert.isDefined(twin)
        assert.strictEqual(yield* walletOf(c.member), 0)
      }))

    it.effect("the partner's GET shows cc.last_hash; a new seed restarts the chain at it", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const shown = (yield* c.admin.client.federationPartners.get({ path: { id: partnerId(c.partner.id) } })).data
        assert.deepStrictEqual(shown.cc, { last_hash: SEED })
        const tx = relayTo(c.memberCode, 1, randomUUID())
        yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: tx })
        const h1 = nextHash(SEED, tx)
        assert.deepStrictEqual(
          (yield* c.admin.client.federationPartners.get({ path: { id: partnerId(c.partner.id) } })).data.cc,
          {
            last_hash: h1
          }
        )

        yield* c.admin.client.federationPartners.update({
          path: { id: partnerId(c.partner.id) },
          payload: { credentials: { hash_seed: "new-seed" } }
        })
        assert.deepStrictEqual(
          (yield* c.admin.client.federationPartners.get({ path: { id: partnerId(c.partner.id) } })).data.cc,
          {
            last_hash: "new-seed"
          }
        )
        const old = yield* ccCall("GET", `${c.cc}/`, { ccNode: "trunk", lastHash: h1 })
        assert.strictEqual(old.status, 401)
        const next = relayTo(c.memberCode, 2, randomUUID())
        const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ccNode: "trunk",
          lastHash: "new-seed",
          body: next
        })
        assert.strictEqual(res.status, 201, res.text)
        assert.strictEqual(yield* storedHash(c.partner.id), nextHash("new-seed", next))
        assert.strictEqual(yield* walletOf(c.member), 3)
        // Other protocols' partners have no `cc`.
        const native = yield* makePartner(c.tenant, {})
        assert.isUndefined(
          (yield* c.admin.client.federationPartners.get({ path: { id: partnerId(native.id) } })).data.cc
        )
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))
  })
})
