import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { federationCall, makeApiKey, makePartner } from "../fixtures/federation.js"
import { TestApp } from "../fixtures/TestApp.js"
import { changeToggles, optIn } from "./inboundKit.js"
import {
  assertJsonApi,
  assertKomunitinError,
  dataOf,
  JSON_API,
  jsonApi,
  KEY_SCOPES,
  komunitinCommunity,
  pathOf,
  transferTo
} from "./komunitinKit.js"

type Page = {
  readonly links: Record<string, string | null>
  readonly data: ReadonlyArray<{ readonly id: string; readonly attributes: Record<string, unknown> }>
}

layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Komunitin JSON:API: the gate", (it) => {
  describe("{CODE} and credentials", () => {
    it.effect("an unknown CODE is 404 NotFound (after the credentials, where a route needs them); another community's key is 403 TENANT_MISMATCH", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const other = yield* komunitinCommunity()
        const unknown = "ZZZZ"
        for (const path of ["/currency", `/accounts/${c.account.account_id}`]) {
          assertKomunitinError(yield* jsonApi("GET", pathOf(unknown, path)), 404, "NotFound")
        }
        assertKomunitinError(yield* jsonApi("GET", pathOf(unknown, "/transfers"), { key: c.key }), 404, "NotFound")
        // Credentials come first on the routes that need them (D13a's order), then the code.
        assertKomunitinError(yield* jsonApi("GET", pathOf(unknown, "/transfers")), 401, "Unauthorized")
        const token = yield* jsonApi("GET", pathOf(unknown, "/transfers"), { bearer: `tbk_${"0".repeat(64)}` })
        assertKomunitinError(token, 401, "INVALID_API_KEY")

        const body = transferTo(other.account.account_id)
        const post = yield* jsonApi("POST", pathOf(other.code, "/transfers"), { key: c.key, body })
        assertKomunitinError(post, 403, "TENANT_MISMATCH")
        const list = yield* jsonApi("GET", pathOf(other.code, "/transfers"), { key: c.key })
        assertKomunitinError(list, 403, "TENANT_MISMATCH")
        // A tenant header that disagrees with the key is refused as on every federation route.
        const header = yield* jsonApi("GET", pathOf(c.code, "/transfers"), {
          key: c.key,
          headers: { "x-tenant-id": String(other.tenant.id) }
        })
        assertKomunitinError(header, 403, "TENANT_MISMATCH")
        assertKomunitinError(
          yield* jsonApi("GET", pathOf(other.code, `/transfers/${body.data.id}`), { key: other.key }),
          404,
          "NotFound"
        )
      }))

    it.effect("no credentials 401 Unauthorized; an unknown key 401; a scope missing, no partner or a pending one 403", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const transfers = pathOf(c.code, "/transfers")
        assertKomunitinError(yield* jsonApi("GET", transfers), 401, "Unauthorized")
        assertKomunitinError(
          yield* jsonApi("GET", transfers, { bearer: `tbk_${"0".repeat(64)}` }),
          401,
          "INVALID_API_KEY"
        )

        const readOnly = yield* makeApiKey(c.tenant, { scopes: ["members:read"], partnerId: c.partner.id })
        const body = transferTo(c.account.account_id)
        assertKomunitinError(yield* jsonApi("POST", transfers, { key: readOnly, body }), 403, "PERMISSION_DENIED")
        assertKomunitinError(yield* jsonApi("GET", transfers, { key: readOnly }), 403, "PERMISSION_DENIED")
        const noMembers = yield* makeApiKey(c.tenant, {
          scopes: ["transactions:read", "transactions:write"],
          partnerId: c.partner.id
        })
        const accounts = pathOf(c.code, `/accounts?filter[code]=${c.account.account_code}`)
        assertKomunitinError(yield* jsonApi("GET", accounts, { key: noMembers }), 403, "PERMISSION_DENIED")

        const unbound = yield* makeApiKey(c.tenant, { scopes: KEY_SCOPES })
        const refused = yield* jsonApi("GET", transfers, { key: unbound })
        assertKomunitinError(refused, 403, "PERMISSION_DENIED", "These routes need a key bound to a partner")
        const pending = yield* makePartner(c.tenant, { protocol: "komunitin", status: "pending" })
        const pendingKey = yield* makeApiKey(c.tenant, { scopes: KEY_SCOPES, partnerId: pending.id })
        assertKomunitinError(yield* jsonApi("POST", transfers, { key: pendingKey, body }), 403, "PERMISSION_DENIED")
        assertJsonApi(yield* jsonApi("GET", transfers, { key: pendingKey }), 200)
      }))

    it.effect("`application/json` bodies and HMAC-signed requests are taken too; answers are always JSON:API", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const path = pathOf(c.code, "/transfers")
        const signed = yield* federationCall("POST", path, {
          key: c.key,
          body: transferTo(c.account.account_id),
          sign: true
        })
        assert.strictEqual(signed.status, 201, signed.text)
        assert.match(signed.headers["content-type"] ?? "", /^application\/vnd\.api\+json/)
        const id = (signed.body as { data: { id: string } }).data.id
        const patched = yield* federationCall("PATCH", `${path}/${id}`, {
          key: c.key,
          body: { data: { attributes: { state: "committed" } } },
          sign: true
        })
        assert.strictEqual(patched.status, 200, patched.text)
        const replayed = yield* federationCall("GET", path, { key: c.key, sign: true, nonce: "n-0123456789" })
        assert.strictEqual(replayed.status, 200)
        const again = yield* federationCall("GET", path, { key: c.key, sign: true, nonce: "n-0123456789" })
        assert.strictEqual(again.status, 409)
        assert.deepInclude((again.body as { errors: Array<object> }).errors[0], {
          status: "409",
          code: "REPLAY_DETECTED"
        })
      }))
  })

  describe("switches and the routes without credentials", () => {
    it.effect("the transactions toggle off: 503 FEDERATION_DISABLED with Retry-After 3600 in Komunitin's shape", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        yield* changeToggles(c.admin, { transactions: false })
        const calls = [
          jsonApi("GET", pathOf(c.code, "/currency")),
          jsonApi("GET", pathOf(c.code, `/accounts/${c.account.account_id}`)),
          jsonApi("GET", pathOf(c.code, "/transfers"), { key: c.key }),
          jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: transferTo(c.account.account_id) })
        ]
        for (const call of calls) {
          const res = yield* call
          const error = assertKomunitinError(res, 503, "FEDERATION_DISABLED")
          assert.strictEqual(error["title"], "Federation disabled")
          assert.strictEqual(res.headers["retry-after"], "3600")
        }
        yield* changeToggles(c.admin, { transactions: true })
        assertJsonApi(yield* jsonApi("GET", pathOf(c.code, "/currency")), 200)
      }))

    it.effect("an account that is not opted in, unknown or not a UUID is 404; the per-IP limit applies", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const otto = (yield* c.other.client.federationAccount.get()).data
        for (const id of [otto.account_id, randomUUID(), "TEST0001"]) {
          assertKomunitinError(yield* jsonApi("GET", pathOf(c.code, `/accounts/${id}`)), 404, "NotFound")
        }
        const res = yield* jsonApi("GET", pathOf(c.code, "/currency"))
        assert.strictEqual(res.headers["x-ratelimit-limit"], "60")
        assert.strictEqual(res.headers["content-type"], JSON_API)
      }))

    it.effect("GET /accounts?filter[code]=: opted-in members' accounts in code order, paged; no filter is 400", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        yield* optIn(c.admin)
        const admin = (yield* c.admin.client.federationAccount.get()).data
        const otto = (yield* c.other.client.federationAccount.get()).data
        const codes = [c.account.account_code, otto.account_code, admin.account_code, `${c.code}99999`, "XXXX0001"]
        const path = pathOf(c.code, `/accounts?filter[code]=${codes.join(",")}`)
        const found = yield* jsonApi("GET", path, { key: c.key })
        assertJsonApi(found, 200)
        const page = found.body as Page
        const byId = [admin, c.account].sort((a, b) => a.account_code.localeCompare(b.account_code))
        assert.deepStrictEqual(page.data.map((a) => a.id), byId.map((a) => a.account_id))
        assert.deepStrictEqual(
          page.data.map((a) => a.attributes),
          byId.map((a) => ({ code: a.account_code, status: "active" }))
        )
        assert.strictEqual(page.links["next"], null)
        assert.strictEqual(page.links["last"], null)

        const first = (yield* jsonApi("GET", `${path}&page[size]=1&sort=-code`, { key: c.key })).body as Page
        assert.deepStrictEqual(first.data.map((a) => a.id), [byId[1]!.account_id])
        assert.include(first.links["next"], "page%5Bafter%5D=1")

        const none = yield* jsonApi("GET", pathOf(c.code, "/accounts"), { key: c.key })
        assertKomunitinError(none, 400, "BadRequest", "Give the accounts' codes in filter[code]")
        const nobody = yield* jsonApi("GET", pathOf(c.code, "/accounts?filter[code]=X"), { key: c.key })
        assert.deepStrictEqual(dataOf<ReadonlyArray<unknown>>(nobody), [])
      }))
  })
})
