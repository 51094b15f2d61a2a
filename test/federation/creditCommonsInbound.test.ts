import { assert, describe, layer } from "@effect/vitest"
import { defaultCurrencyCode } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { nextHash } from "../../packages/server/src/federation/creditcommons/HashChain.js"
import { community } from "../fixtures/community.js"
import { federationOn } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  ccCall,
  ccCommunity,
  forAccount,
  ledgerRowsOf,
  relaysOf,
  relayTo,
  SEED,
  storedHash,
  walletOf
} from "./creditCommonsKit.js"
import {
  ACCOUNT_AFTER,
  ACCOUNT_BEFORE,
  ERRORS,
  HASH_VECTORS,
  RELAY_201,
  TX_FEES,
  TX_RELAY
} from "./peers/creditCommonsFixtures.js"
import { clearingBalance } from "./writesKit.js"

/**
 * Our Credit Commons node (decisions D16) against Komunitin's fixtures (fixtures/credit-commons/01–14): relays, the
 * account summary, the 401s and the PATCH, and the hash chain with its replays and races.
 */

const AUTH = { ccNode: "trunk", lastHash: SEED }

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Credit Commons node, inbound", (it) => {
  describe("fixtures replayed", () => {
    it.effect("01/03/04/05/06: a relay credits the member from the clearing account, 201 echoes the entries", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const before = yield* ccCall("GET", `${c.cc}/account?acc_path=${c.memberCode}`, AUTH)
        assert.strictEqual(before.status, 200, before.text)
        assert.deepStrictEqual(before.body, ACCOUNT_BEFORE)

        const tx = forAccount(TX_RELAY, c.memberCode)
        const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: tx })
        assert.strictEqual(res.status, 201, res.text)
        assert.strictEqual(res.headers["content-type"], "application/json")
        assert.deepStrictEqual(res.body, { ...RELAY_201, data: tx.entries })
        assert.strictEqual(res.headers["cc-node-trace"], "trunk, <branch2")

        // The chain moved to fixture 04's first vector (the hash ignores payee, so our account code changes nothing).
        assert.strictEqual(yield* storedHash(c.partner.id), HASH_VECTORS[0].md5_hex)
        assert.strictEqual(yield* walletOf(c.member), 0.01)
        assert.strictEqual(yield* clearingBalance(c.partner), -0.01)
        const ledger = yield* ledgerRowsOf(c.tenant.id, c.partner.id, tx.uuid)
        assert.deepStrictEqual(ledger.map((r) => [r.amount, r.type, r.description]), [
          ["0.01", "federated", "test long distance for 3 from leaf"]
        ])

        const after = yield* ccCall("GET", `${c.cc}/account?acc_path=${c.memberCode}`, {
          ccNode: "trunk",
          lastHash: HASH_VECTORS[0].md5_hex
        })
        assert.strictEqual(after.status, 200, after.text)
        // Fixture 06, except `partners`: Komunitin always answers 0, we count the remote accounts traded with.
        assert.deepStrictEqual(after.body, { ...ACCOUNT_AFTER, partners: 1 })
        // The old hash is spent: the welcome now refuses it.
        const stale = yield* ccCall("GET", `${c.cc}/`, AUTH)
        assert.strictEqual(stale.status, 401)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("02: a relay with fees credits the net gain (14 − 2 − 3 − 1); uuid `existing` is 400", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const bad = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ...AUTH,
          body: forAccount(TX_FEES, c.memberCode, "existing")
        })
        assert.strictEqual(bad.status, 400, bad.text)
        assert.deepStrictEqual(bad.body, { errors: ["uuid: must be a UUID"] })
        assert.isUndefined(yield* storedHash(c.partner.id))

        const tx = forAccount(TX_FEES, c.memberCode)
        const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: tx })
        assert.strictEqual(res.status, 201, res.text)
        assert.deepStrictEqual(res.body, { data: tx.entries, meta: { secs_valid_left: 0 } })
        assert.strictEqual(yield* storedHash(c.partner.id), HASH_VECTORS[1].md5_hex)
        assert.strictEqual(yield* walletOf(c.member), 8)
        assert.strictEqual(yield* clearingBalance(c.partner), -8)
        const [row] = yield* ledgerRowsOf(c.tenant.id, c.partner.id, tx.uuid)
        assert.strictEqual(
          row!.description,
          "test long distance for 3 from leaf\n(-2 trunk/branch/twig/admin Payee fee of 1 to twig/admin), " +
            "(-3 trunk/branch/admin Payee fee of 1 to branch/admin), (-1 trunk/admin Payee fee of 1 to trunk/admin)"
        )
        const summary = yield* ccCall("GET", `${c.cc}/account?acc_path=${c.memberCode}`, {
          ccNode: "trunk",
          lastHash: HASH_VECTORS[1].md5_hex
        })
        assert.deepStrictEqual(summary.body, {
          trades: 1,
          entries: 4,
          gross_in: 8,
          gross_out: 0,
          partners: 4,
          pending: 0,
          balance: 8
        })
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("08–12: each 401 with Komunitin's exact text; nothing is credited", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const body = forAccount(TX_RELAY, c.memberCode)
        const relay = `${c.cc}/transaction/relay`
        const cases = [
          [{ lastHash: SEED }, ERRORS.ccNodeMissing],
          [{ ccNode: "trunk" }, ERRORS.lastHashMissing],
          [{ ccNode: "trunk", lastHash: "qwer" }, ERRORS.lastHashMismatch],
          [{ ccNode: "bla", lastHash: SEED }, ERRORS.wrongCcNode],
          [{ ccNode: "", lastHash: SEED }, ERRORS.ccNodeMissing]
        ] as const
        for (const [headers, expected] of cases) {
          for (const [method, path] of [["POST", relay], ["GET", `${c.cc}/`]] as const) {
            const res = yield* ccCall(method, path, { ...headers, ...(method === "POST" ? { body } : {}) })
            assert.strictEqual(res.status, 401, `${method} ${JSON.stringify(headers)}: ${res.text}`)
            assert.deepStrictEqual(res.body, expected)
            assert.strictEqual(res.headers["content-type"], "application/json")
          }
        }
        // A community with no Credit Commons partner has not been grafted (fixture 12).
        const bare = yield* community({ signIn: "token" })
        yield* federationOn(bare.tenant)
        const ungrafted = yield* ccCall(
          "POST",
          `/api/v1/federation/${defaultCurrencyCode(bare.tenant.id)}/cc/transaction/relay`,
          {
            ...AUTH,
            body
          }
        )
        assert.strictEqual(ungrafted.status, 401)
        assert.deepStrictEqual(ungrafted.body, ERRORS.notGrafted)

        assert.strictEqual(yield* walletOf(c.member), 0)
        assert.isUndefined(yield* storedHash(c.partner.id))
      }))

    it.effect("13/14: PATCH of an unknown transaction is 404, of a relayed one 400 `not implemented yet`", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const missing = yield* ccCall("PATCH", `${c.cc}/transaction/non-existing/C`, AUTH)
        assert.strictEqual(missing.status, 404, missing.text)
        assert.deepStrictEqual(missing.body, ERRORS.transferNotFound)

        const tx = forAccount(TX_RELAY, c.memberCode, randomUUID())
        yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: tx })
        const after = nextHash(SEED, tx)
        const known = yield* ccCall("PATCH", `${c.cc}/transaction/${tx.uuid}/C`, { ccNode: "trunk", lastHash: after })
        // Komunitin answers 500 here; D16 makes it a 400 with the same text.
        assert.strictEqual(known.status, 400, known.text)
        assert.deepStrictEqual(known.body, ERRORS.patchNotImplemented)
        // Still last-hash authenticated.
        const stale = yield* ccCall("PATCH", `${c.cc}/transaction/${tx.uuid}/C`, AUTH)
        assert.strictEqual(stale.status, 401)
        assert.strictEqual(yield* walletOf(c.member), 0.01)
      }))

    it.effect("GET / welcomes with the current hash, with or without the trailing slash", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        for (const path of [`${c.cc}/`, c.cc]) {
          const res = yield* ccCall("GET", path, AUTH)
          assert.strictEqual(res.status, 200, res.text)
          assert.strictEqual(res.headers["content-type"], "application/json")
          assert.deepStrictEqual(res.body, { message: "Welcome to the Credit Commons federation protocol." })
        }
        // The welcome reads only: the chain row is not even made.
        assert.isUndefined(yield* storedHash(c.partner.id))
      }))
  })

  describe("the chain", () => {
    it.effect("a stale or forged hash is 401 and credits nothing; the same relay resent answers the same 201 once", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const first = relayTo(c.memberCode, 1.5, randomUUID())
        const ok = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: first })
        assert.strictEqual(ok.status, 201)
        const h1 = nextHash(SEED, first)
        assert.strictEqual(yield* storedHash(c.partner.id), h1)

        // The same relay again with its preceding hash: the same 201, no second credit, the chain stays.
        const again = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body: first })
        assert.strictEqual(again.status, 201, again.text)
        assert.deepStrictEqual(again.body, ok.body)
        assert.strictEqual(yield* walletOf(c.member), 1.5)
        assert.strictEqual((yield* ledgerRowsOf(c.tenant.id, c.partner.id, first.uuid)).length, 1)
        assert.strictEqual(yield* storedHash(c.partner.id), h1)

        // A changed body under the old hash, a new relay under the old hash, a forged hash: 401, nothing moves.
        const changed = { ...first, entries: [{ ...first.entries[0]!, quant: 15 }] }
        const second = relayTo(c.memberCode, 2, randomUUID())
        for (
          const [lastHash, body] of [[SEED, changed], [SEED, second], ["0".repeat(32), second], [
            h1.toUpperCase(),
            second
          ]] as const
        ) {
          const res = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ccNode: "trunk", lastHash, body })
          assert.strictEqual(res.status, 401, res.text)
          assert.deepStrictEqual(res.body, {
            errors: [`value of last-hash header ${JSON.stringify(lastHash)} does not match our records.`]
          })
        }
        assert.strictEqual(yield* walletOf(c.member), 1.5)
        assert.strictEqual(yield* storedHash(c.partner.id), h1)

        // With the current hash it goes through; a uuid used before is refused even with the right hash.
        const next = yield* ccCall("POST", `${c.cc}/transaction/relay`, { ccNode: "trunk", lastHash: h1, body: second })
        assert.strictEqual(next.status, 201, next.text)
        const h2 = nextHash(h1, second)
        const reused = yield* ccCall("POST", `${c.cc}/transaction/relay`, {
          ccNode: "trunk",
          lastHash: h2,
          body: relayTo(c.memberCode, 3, first.uuid)
        })
        assert.strictEqual(reused.status, 400)
        assert.deepStrictEqual(reused.body, { errors: [`Transaction ${first.uuid} already exists.`] })
        assert.strictEqual(yield* walletOf(c.member), 3.5)
        assert.deepStrictEqual((yield* relaysOf(c.partner.id)).map((r) => [r.direction, r.hash_before, r.hash_after]), [
          ["in", SEED, h1],
          ["in", h1, h2]
        ])
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("parallel relays on one hash: exactly one 201 advances the chain; a resent relay credits once", () =>
      Effect.gen(function*() {
        const c = yield* ccCommunity()
        const relays = Array.from({ length: 6 }, (_, i) => relayTo(c.memberCode, i + 1, randomUUID()))
        const answers = yield* Effect.forEach(
          relays,
          (body) => ccCall("POST", `${c.cc}/transaction/relay`, { ...AUTH, body }),
          { concurrency: "unbounded" }
        )
        const won = answers.flatMap((a, i) => (a.status === 201 ? [relays[i]!] : []))
        assert.strictEqual(won.length, 1, answers.map((a) => a.status).join(","))
        assert.isTrue(answers.every((a) => a.status === 201 || a.status === 401))
        const h1 = nextHash(SEED, won[0]!)
        assert.strictEqual(yield* storedHash(c.partner.id), h1)
        assert.strictEqual(yield* walletOf(c.member), won[0]!.entries[0]!.quant)

        // The same next relay sent five times at once with the current hash: five 201s, one credit.
        const same = relayTo(c.memberCode, 0.25, randomUUID())
        const repeats = yield* Effect.forEach(
          [1, 2, 3, 4, 5],
          () => ccCall("POST", `${c.cc}/transaction/relay`, { ccNode: "trunk", lastHash: h1, body: same }),
          { concurrency: "unbounded" }
        )
        assert.deepStrictEqual(repeats.map((r) => r.status), [201, 201, 201, 201, 201])
        assert.strictEqual((yield* ledgerRowsOf(c.tenant.id, c.partner.id, same.uuid)).length, 1)
        assert.strictEqual(yield* storedHash(c.partner.id), nextHash(h1, same))
        assert.strictEqual((yield* relaysOf(c.partner.id)).length, 2)
        assert.strictEqual(yield* walletOf(c.member), won[0]!.entries[0]!.quant + 0.25)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))
  })
})
