import { assert, describe, it as pure, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import {
  crc16XModem,
  decodeStellarPublicKey,
  encodeStellarPublicKey,
  pinnedKeysOf
} from "../../packages/server/src/federation/komunitin/StellarKeys.js"
import { makePartner } from "../fixtures/federation.js"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  K08_CURRENCY_RESPONSE_200,
  K14_EXTERNAL_TRANSFER_UPDATE_SERVER_TO_SERVER_REQUEST
} from "./komunitinFixtures.js"
import {
  assertJsonApi,
  assertKomunitinError,
  dataOf,
  jsonApi,
  komunitinCommunity,
  komunitinToken,
  pathOf,
  stellarKeyPair,
  transferTo
} from "./komunitinKit.js"
import { clearingBalance } from "./writesKit.js"

type Transfer = { readonly id: string; readonly attributes: Record<string, unknown> }

/** Real Stellar account ids from Komunitin's fixture 08 (`keys`): their checksums must hold. */
const FIXTURE_KEYS = Object.values(K08_CURRENCY_RESPONSE_200.data.attributes.keys)

describe("Stellar account ids (SEP-23 strkeys)", () => {
  pure("decodes Komunitin's keys (version byte, 32 bytes, CRC16-XModem) and encodes them back", () => {
    for (const key of FIXTURE_KEYS) {
      const raw = decodeStellarPublicKey(key)
      assert.isDefined(raw, key)
      assert.strictEqual(raw!.length, 32)
      assert.strictEqual(encodeStellarPublicKey(raw!), key)
    }
    // CRC16-XModem's check value ("123456789" → 0x31C3).
    assert.strictEqual(crc16XModem(new TextEncoder().encode("123456789")), 0x31c3)
  })

  pure("refuses a changed character, another version (a secret seed), a wrong length or alphabet", () => {
    const key = FIXTURE_KEYS[0]!
    const changed = `${key.slice(0, 10)}${key[10] === "A" ? "B" : "A"}${key.slice(11)}`
    for (const bad of [changed, `S${key.slice(1)}`, key.slice(0, 55), `${key}A`, key.toLowerCase(), "", "G0"]) {
      assert.isUndefined(decodeStellarPublicKey(bad), bad)
    }
    assert.throws(() => encodeStellarPublicKey(new Uint8Array(31)))
  })

  pure("reads a partner's pinned keys separated by commas and/or white space", () => {
    assert.deepStrictEqual(pinnedKeysOf(" GA1 ,GB2\n\tGC3,, "), ["GA1", "GB2", "GC3"])
    assert.deepStrictEqual(pinnedKeysOf(undefined), [])
  })
})

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Komunitin server-to-server tokens", (it) => {
  it.effect("a token whose key the partner pinned acts as that partner: create, read, list and fixture 14's PATCH", () =>
    Effect.gen(function*() {
      const signer = stellarKeyPair()
      const second = stellarKeyPair()
      const c = yield* komunitinCommunity({
        pinnedKeys: `${stellarKeyPair().strkey}, ${signer.strkey}\n${second.strkey}`
      })
      const bearer = yield* komunitinToken(signer)
      const path = pathOf(c.code, "/transfers")
      const committed = yield* jsonApi("POST", path, { bearer, body: transferTo(c.account.account_id) })
      assertJsonApi(committed, 201)
      const id = dataOf<Transfer>(committed).id
      assertJsonApi(yield* jsonApi("GET", `${path}/${id}`, { bearer }), 200)
      const list = yield* jsonApi("GET", path, { bearer: yield* komunitinToken(second) })
      assert.deepStrictEqual((list.body as { data: ReadonlyArray<Transfer> }).data.map((t) => t.id), [id])

      // Fixture 14: how a Komunitin server commits a transfer it created on our side (with its Stellar hash).
      const waiting = transferTo(c.account.account_id, { state: "new", amount: 40 })
      assertJsonApi(yield* jsonApi("POST", path, { bearer, body: waiting }), 201)
      const update = {
        data: { ...K14_EXTERNAL_TRANSFER_UPDATE_SERVER_TO_SERVER_REQUEST.data, id: waiting.data.id }
      }
      const patched = yield* jsonApi("PATCH", `${path}/${waiting.data.id}`, { bearer, body: update })
      assertJsonApi(patched, 200)
      assert.strictEqual(dataOf<Transfer>(patched).attributes["state"], "committed")
      assert.notProperty(dataOf<Transfer>(patched).attributes, "hash", "the Stellar hash is taken, not kept")
      assert.strictEqual(yield* clearingBalance(c.partner), -1.9)
      assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

      // Only transfers: reading accounts by code needs `members:read`, which a token never has.
      const accounts = yield* jsonApi("GET", pathOf(c.code, `/accounts?filter[code]=${c.account.account_code}`), {
        bearer
      })
      assertKomunitinError(accounts, 403, "PERMISSION_DENIED")
    }))

  it.effect("refused with 401: expired, too old, another audience, an unpinned key, tampered, `sub` not a Stellar key", () =>
    Effect.gen(function*() {
      const signer = stellarKeyPair()
      const c = yield* komunitinCommunity({ pinnedKeys: signer.strkey })
      const path = pathOf(c.code, "/transfers")
      const now = Math.floor(Date.now() / 1000)
      const good = yield* komunitinToken(signer)
      const [header, payload, signature] = good.split(".") as [string, string, string]
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>
      const forged = Buffer.from(JSON.stringify({ ...claims, exp: now + 7200 })).toString("base64url")
      const flipped = `${signature.slice(0, -2)}${signature.endsWith("AA") ? "BB" : "AA"}`
      const refused = {
        expired: yield* komunitinToken(signer, { iat: now - 7200, exp: now - 3600 }),
        // An hour, plus the 5 minutes of tolerance.
        "older than an hour": yield* komunitinToken(signer, { iat: now - 3960, exp: now + 600 }),
        "another audience": yield* komunitinToken(signer, { aud: "timebank-federation" }),
        "an unpinned key": yield* komunitinToken(stellarKeyPair()),
        "a changed claim": `${header}.${forged}.${signature}`,
        "a changed signature": `${header}.${payload}.${flipped}`,
        "sub not a Stellar key": yield* komunitinToken(signer, { sub: "komunitin-user-1" }),
        "sub another pinned-looking key": yield* komunitinToken(signer, { sub: stellarKeyPair().strkey })
      }
      for (const [why, bearer] of Object.entries(refused)) {
        const res = yield* jsonApi("POST", path, { bearer, body: transferTo(c.account.account_id) })
        assert.strictEqual(res.status, 401, why)
        assertKomunitinError(res, 401, "INVALID_TOKEN")
      }
      // Komunitin's 5 minutes of clock tolerance: a token that expired 2 minutes ago still passes.
      const late = yield* komunitinToken(signer, { iat: now - 3000, exp: now - 120 })
      assertJsonApi(yield* jsonApi("GET", path, { bearer: late }), 200)
      assert.strictEqual(yield* clearingBalance(c.partner), 0)
    }))

  it.effect("a key pinned only by another community's partner, or by a partner that is not `komunitin`, is refused", () =>
    Effect.gen(function*() {
      const signer = stellarKeyPair()
      const c = yield* komunitinCommunity()
      yield* komunitinCommunity({ pinnedKeys: signer.strkey })
      yield* makePartner(c.tenant, { protocol: "native", credentials: { komunitin_public_keys: signer.strkey } })
      const bearer = yield* komunitinToken(signer)
      const res = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
        bearer,
        body: transferTo(c.account.account_id)
      })
      assertKomunitinError(res, 401, "INVALID_TOKEN")
    }))

  it.effect("a suspended partner's token is 403; its transfers stay its own (another partner's id is 404)", () =>
    Effect.gen(function*() {
      const signer = stellarKeyPair()
      const c = yield* komunitinCommunity()
      const suspended = yield* makePartner(c.tenant, {
        protocol: "komunitin",
        status: "suspended",
        credentials: { komunitin_public_keys: signer.strkey }
      })
      const bearer = yield* komunitinToken(signer)
      const path = pathOf(c.code, "/transfers")
      assertKomunitinError(
        yield* jsonApi("POST", path, { bearer, body: transferTo(c.account.account_id) }),
        403,
        "PERMISSION_DENIED"
      )
      assertKomunitinError(yield* jsonApi("GET", path, { bearer }), 403, "PERMISSION_DENIED")
      assert.strictEqual(yield* clearingBalance(suspended), 0)

      const other = stellarKeyPair()
      const active = yield* komunitinCommunity({ pinnedKeys: other.strkey })
      const byKey = transferTo(active.account.account_id, { id: randomUUID() })
      assertJsonApi(yield* jsonApi("POST", pathOf(active.code, "/transfers"), { key: active.key, body: byKey }), 201)
      const rival = stellarKeyPair()
      yield* makePartner(active.tenant, { protocol: "komunitin", credentials: { komunitin_public_keys: rival.strkey } })
      const read = yield* jsonApi("GET", pathOf(active.code, `/transfers/${byKey.data.id}`), {
        bearer: yield* komunitinToken(rival)
      })
      assertKomunitinError(read, 404, "NotFound")
      // The partner's own token sees what its key sent: both name the same partner.
      const own = yield* jsonApi("GET", pathOf(active.code, `/transfers/${byKey.data.id}`), {
        bearer: yield* komunitinToken(other)
      })
      assertJsonApi(own, 200)
    }))
})
