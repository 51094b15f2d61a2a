import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { verifyLedger } from "../fixtures/ledger.js"
import { TestApp } from "../fixtures/TestApp.js"
import {
  K01_TRANSFER_CREATE_COMMITTED_REQUEST,
  K02_TRANSFER_CREATE_NEW_REQUEST,
  K03_TRANSFER_COMMIT_REQUEST,
  K04_TRANSFER_CREATE_RESPONSE_201,
  K05_TRANSFER_COMMIT_RESPONSE_200,
  K06_TRANSFER_CREATE_EXTERNAL_PAYEE_REQUEST,
  K07_ACCOUNT_RESPONSE_200,
  K08_CURRENCY_RESPONSE_200,
  K09_TRANSFERS_LIST_RESPONSE_200,
  K10_ERROR_400_FIELD_VALIDATION,
  K11_ERROR_403_FORBIDDEN,
  K12_CURRENCY_CREATE_REQUEST,
  K13_TRUSTLINE_CREATE_REQUEST
} from "./komunitinFixtures.js"
import {
  adapted,
  assertJsonApi,
  assertKomunitinError,
  dataOf,
  externalAccount,
  jsonApi,
  komunitinCommunity,
  pathOf,
  type Resource,
  transferTo,
  walletOf
} from "./komunitinKit.js"
import { clearingBalance } from "./writesKit.js"

/**
 * Every request fixture of shared/federation/fixtures/komunitin replayed against our routes, the answers compared
 * with the response fixtures field by field (decisions D16; its deviations are named in the assertion messages).
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** `<PUBLIC_URL>/api/v1/federation/<CODE>`: where Komunitin has `http://localhost:2025/<CODE>` (D16's prefix). */
const baseOf = (account: { readonly href: string; readonly account_id: string }) =>
  account.href.slice(0, -`/accounts/${account.account_id}`.length)

/** Compares our transfer with a Komunitin response fixture, key by key; D16's deviations are named. */
const assertTransferLike = (
  ours: Resource,
  fixture: { readonly data: { readonly attributes: object; readonly relationships: object } },
  expected: { readonly base: string; readonly payee: string; readonly payer: ReturnType<typeof externalAccount> }
) => {
  assert.strictEqual(ours.type, "transfers")
  assert.match(ours.id, UUID)
  const attributes = Object.keys(fixture.data.attributes).filter((k) => k !== "hash")
  assert.deepStrictEqual(Object.keys(ours.attributes).sort(), attributes.sort(), "D16: no `hash` (no Stellar ledger)")
  assert.match(String(ours.attributes["created"]), ISO)
  assert.match(String(ours.attributes["updated"]), ISO)
  assert.strictEqual(ours.links.self, `${expected.base}/transfers/${ours.id}`, "D16: our host and /api/v1/federation")
  assert.deepStrictEqual(Object.keys(ours.relationships), Object.keys(fixture.data.relationships))
  assert.deepStrictEqual(ours.relationships["payer"]!.data, expected.payer, "the external payer keeps its meta")
  assert.deepStrictEqual(ours.relationships["payee"]!.data, { type: "accounts", id: expected.payee })
  assert.strictEqual(ours.relationships["currency"]!.data["type"], "currencies")
  assert.match(String(ours.relationships["currency"]!.data["id"]), UUID)
}
layer(TestApp(), { excludeTestServices: true, timeout: "180 seconds" })("Komunitin JSON:API inbound", (it) => {
  describe("Komunitin's fixtures replayed", () => {
    it.effect("08 currency and 07 account: no credentials, Komunitin's resource shape in hundredths of an hour", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const base = baseOf(c.account)
        const currency = yield* jsonApi("GET", pathOf(c.code, "/currency"))
        assertJsonApi(currency, 200)
        const cur = dataOf<Resource>(currency)
        const fixture = K08_CURRENCY_RESPONSE_200.data
        assert.strictEqual(cur.type, fixture.type)
        assert.match(cur.id, UUID)
        assert.strictEqual(cur.attributes["code"], c.code)
        assert.strictEqual(cur.attributes["status"], fixture.attributes.status)
        assert.strictEqual(cur.attributes["decimals"], fixture.attributes.decimals)
        assert.strictEqual(cur.attributes["scale"], 2, "D16: hundredths of an hour (the fixture's currency has 4)")
        assert.deepStrictEqual(cur.attributes["rate"], { n: 1, d: 1 }, "D16: one unit is 1/100 h (fixture: {1, 10})")
        for (const key of ["name", "namePlural", "symbol", "created", "updated"]) {
          assert.property(cur.attributes, key)
          assert.property(fixture.attributes, key)
        }
        assert.notProperty(cur.attributes, "keys", "no Stellar keys: we run no Stellar ledger")
        assert.notProperty(cur.attributes, "settings", "stale in the fixture (a relationship now); none here")
        assert.strictEqual(cur.links.self, `${base}/currency`)

        const account = yield* jsonApi("GET", pathOf(c.code, `/accounts/${c.account.account_id}`))
        assertJsonApi(account, 200)
        const acc = dataOf<Resource>(account)
        const accountFixture = K07_ACCOUNT_RESPONSE_200.data
        assert.strictEqual(acc.type, accountFixture.type)
        assert.strictEqual(acc.id, c.account.account_id)
        assert.strictEqual(acc.attributes["code"], c.account.account_code)
        assert.match(String(acc.attributes["code"]), new RegExp(`^${c.code}\\d{4,}$`), "CODE + 4 digits, as TEST0001")
        assert.deepStrictEqual(acc.attributes, { code: c.account.account_code, status: "active" })
        for (const hidden of ["balance", "creditLimit", "key"]) {
          assert.property(accountFixture.attributes, hidden)
          assert.notProperty(acc.attributes, hidden, `D16: no ${hidden}`)
        }
        assert.strictEqual(acc.links.self, c.account.href)
        assert.deepStrictEqual(acc.relationships, { currency: { data: { type: "currencies", id: cur.id } } })
      }))

    it.effect("01 as sent (a local payer) is 403 Forbidden like fixture 11; with an external payer it is 201 like 04", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const base = baseOf(c.account)
        const payee = { data: { type: "accounts", id: c.account.account_id } }
        const local = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K01_TRANSFER_CREATE_COMMITTED_REQUEST, { payee })
        })
        const error = assertKomunitinError(local, 403, K11_ERROR_403_FORBIDDEN.errors[0].code)
        assert.strictEqual(error["title"], K11_ERROR_403_FORBIDDEN.errors[0].title)

        const before = yield* walletOf(c.member)
        const payer = externalAccount(K01_TRANSFER_CREATE_COMMITTED_REQUEST.data.relationships.payer.data.id)
        const res = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K01_TRANSFER_CREATE_COMMITTED_REQUEST, { payee, payer: { data: payer } })
        })
        assertJsonApi(res, 201)
        const transfer = dataOf<Resource>(res)
        assertTransferLike(transfer, K04_TRANSFER_CREATE_RESPONSE_201, { base, payee: c.account.account_id, payer })
        assert.strictEqual(transfer.attributes["state"], K04_TRANSFER_CREATE_RESPONSE_201.data.attributes.state)
        assert.strictEqual(transfer.attributes["amount"], K04_TRANSFER_CREATE_RESPONSE_201.data.attributes.amount)
        assert.deepStrictEqual(
          transfer.attributes["meta"],
          { description: "User transfer" },
          "meta is an object (fixture 04's string is the stale 2024 example)"
        )
        // 100 units = 1 hour, from the partner's clearing account.
        assert.strictEqual(yield* walletOf(c.member), before + 1)
        assert.strictEqual(yield* clearingBalance(c.partner), -1)
        const read = yield* jsonApi("GET", pathOf(c.code, `/transfers/${transfer.id}`), { key: c.key })
        assertJsonApi(read, 200)
        assert.deepStrictEqual(dataOf(read), transfer)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("02 creates `new` (no money moves), 03 commits it: 200 like fixture 05", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const base = baseOf(c.account)
        const payer = externalAccount()
        const before = yield* walletOf(c.member)
        const created = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K02_TRANSFER_CREATE_NEW_REQUEST, {
            payer: { data: payer },
            payee: { data: { type: "accounts", id: c.account.account_id } }
          })
        })
        assertJsonApi(created, 201)
        const transfer = dataOf<Resource>(created)
        assert.strictEqual(transfer.attributes["state"], "new")
        assert.strictEqual(yield* walletOf(c.member), before)

        const res = yield* jsonApi("PATCH", pathOf(c.code, `/transfers/${transfer.id}`), {
          key: c.key,
          body: K03_TRANSFER_COMMIT_REQUEST
        })
        assertJsonApi(res, 200)
        const committed = dataOf<Resource>(res)
        assertTransferLike(committed, K05_TRANSFER_COMMIT_RESPONSE_200, { base, payee: c.account.account_id, payer })
        assert.strictEqual(committed.id, transfer.id)
        assert.strictEqual(committed.attributes["state"], K05_TRANSFER_COMMIT_RESPONSE_200.data.attributes.state)
        assert.strictEqual(committed.attributes["amount"], K05_TRANSFER_COMMIT_RESPONSE_200.data.attributes.amount)
        assert.deepStrictEqual(committed.attributes["meta"], { description: "Two-step transfer" }, "meta: an object")
        assert.strictEqual(committed.attributes["created"], transfer.attributes["created"])
        assert.isAbove(
          Date.parse(String(committed.attributes["updated"])),
          Date.parse(String(transfer.attributes["created"])) - 1
        )
        assert.strictEqual(yield* walletOf(c.member), before + 0.3)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("06 (a local payer paying an external payee) is 403; both parties external is 400 BadRequest", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const outward = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K06_TRANSFER_CREATE_EXTERNAL_PAYEE_REQUEST, {
            payer: { data: { type: "accounts", id: c.account.account_id } }
          })
        })
        assertKomunitinError(outward, 403, "Forbidden")
        const both = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K06_TRANSFER_CREATE_EXTERNAL_PAYEE_REQUEST, { payer: { data: externalAccount() } })
        })
        assertKomunitinError(both, 400, "BadRequest", "Both payer and payee cannot be external")
        assert.strictEqual(yield* clearingBalance(c.partner), 0)
      }))

    it.effect("09 list: offset pages, `links` as Komunitin builds them (`next` null on a short page, `last` null)", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const base = baseOf(c.account)
        const ids: Array<string> = []
        for (let i = 0; i < 4; i++) {
          const res = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
            key: c.key,
            body: adapted(K02_TRANSFER_CREATE_NEW_REQUEST, {
              payer: { data: externalAccount() },
              payee: { data: { type: "accounts", id: c.account.account_id } }
            })
          })
          assertJsonApi(res, 201)
          ids.push(dataOf<Resource>(res).id)
        }
        const query = "?page[size]=3&sort=-created"
        const page = yield* jsonApi("GET", pathOf(c.code, `/transfers${query}`), { key: c.key })
        assertJsonApi(page, 200)
        const body = page.body as { links: Record<string, unknown>; data: ReadonlyArray<Resource> }
        const fixtureLinks = K09_TRANSFERS_LIST_RESPONSE_200.links
        const ours = (link: string) => link.replace("http://localhost:2025/TEST", base)
        assert.deepStrictEqual(body.links, {
          first: ours(fixtureLinks.first),
          last: fixtureLinks.last,
          prev: fixtureLinks.prev,
          next: ours(fixtureLinks.next)
        })
        assert.deepStrictEqual(body.data.map((t) => t.id), [ids[3], ids[2], ids[1]])
        const item = body.data[0]!
        const fixtureItem = K09_TRANSFERS_LIST_RESPONSE_200.data[0]
        assert.deepStrictEqual(Object.keys(item.attributes).sort(), Object.keys(fixtureItem.attributes).sort())
        assert.strictEqual(item.attributes["state"], fixtureItem.attributes.state)
        assert.strictEqual(item.links.self, `${base}/transfers/${item.id}`)

        const last = yield* jsonApi("GET", pathOf(c.code, `/transfers${query}&page[after]=3`), { key: c.key })
        const lastBody = last.body as { links: Record<string, unknown>; data: ReadonlyArray<Resource> }
        assert.deepStrictEqual(lastBody.data.map((t) => t.id), [ids[0]])
        assert.strictEqual(lastBody.links["next"], null)
        assert.strictEqual(lastBody.links["last"], null)
        assert.strictEqual(lastBody.links["prev"], ours(fixtureLinks.first))
        // Ascending by default; a size over 200 or one that does not parse is Komunitin's default, 20.
        const all = yield* jsonApi("GET", pathOf(c.code, "/transfers?page[size]=500"), { key: c.key })
        assert.deepStrictEqual((all.body as { data: ReadonlyArray<Resource> }).data.map((t) => t.id), ids)
        const odd = yield* jsonApi("GET", pathOf(c.code, "/transfers?page[size]=x&page[after]=-2&sort=amount"), {
          key: c.key
        })
        assertJsonApi(odd, 200)
        assert.strictEqual((odd.body as { data: ReadonlyArray<Resource> }).data.length, 4)
      }))

    it.effect("10: an amount that is not a positive integer is exactly fixture 10; other fields name themselves", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        /** Fixture 02 (ours ids) with some attributes replaced. */
        const body = (attributes: Record<string, unknown>) => {
          const sent = adapted(K02_TRANSFER_CREATE_NEW_REQUEST, {
            payer: { data: externalAccount() },
            payee: { data: { type: "accounts", id: c.account.account_id } }
          })
          return { data: { ...sent.data, attributes: { ...sent.data.attributes, ...attributes } } }
        }
        for (const amount of [-10, 0, 10.5, "100", 100_000_001]) {
          const res = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: body({ amount }) })
          assertJsonApi(res, 400)
          assert.deepStrictEqual(res.body, K10_ERROR_400_FIELD_VALIDATION, `amount ${amount}`)
        }
        const meta = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: body({ meta: "Two-step transfer" })
        })
        assertKomunitinError(
          meta,
          400,
          "FieldValidationError",
          "Field data.attributes.meta is invalid in request body."
        )
        const state = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: body({ state: "pending" })
        })
        assertKomunitinError(
          state,
          400,
          "FieldValidationError",
          "Field data.attributes.state is invalid in request body."
        )
        const notUuid = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: adapted(K02_TRANSFER_CREATE_NEW_REQUEST, {
            payer: { data: { ...externalAccount(), id: "local/123" } },
            payee: { data: { type: "accounts", id: c.account.account_id } }
          })
        })
        assertKomunitinError(
          notUuid,
          400,
          "FieldValidationError",
          "Field data.relationships.payer.data.id is invalid in request body."
        )
        const { href: _href, ...noHref } = externalAccount().meta
        const withoutHref = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: transferTo(c.account.account_id, { payer: { ...externalAccount(), meta: noHref } as never })
        })
        assertKomunitinError(
          withoutHref,
          400,
          "FieldValidationError",
          "Field data.relationships.payer.data.meta.href is invalid in request body."
        )
        // Komunitin's validator takes `external: "true"` as well as `true`.
        const textual = { ...externalAccount(), meta: { ...externalAccount().meta, external: "true" } }
        const taken = yield* jsonApi("POST", pathOf(c.code, "/transfers"), {
          key: c.key,
          body: transferTo(c.account.account_id, { payer: textual as never })
        })
        assertJsonApi(taken, 201)
        const notJson = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: undefined })
        assertKomunitinError(notJson, 400, "BadRequest", "The request body is not a JSON:API document")
        const noData = yield* jsonApi("POST", pathOf(c.code, "/transfers"), { key: c.key, body: { transfers: [] } })
        assertKomunitinError(noData, 400, "FieldValidationError", "Field data is invalid in request body.")
      }))

    it.effect("12 (currencies) and 13 (trustlines) are routes this server does not have: 404 NotFound", () =>
      Effect.gen(function*() {
        const c = yield* komunitinCommunity()
        const currencies = yield* jsonApi("POST", "/api/v1/federation/currencies", {
          key: c.key,
          body: K12_CURRENCY_CREATE_REQUEST
        })
        assertKomunitinError(currencies, 404, "NotFound")
        const trustlines = yield* jsonApi("POST", pathOf(c.code, "/trustlines"), {
          key: c.key,
          body: K13_TRUSTLINE_CREATE_REQUEST
        })
        assertKomunitinError(trustlines, 404, "NotFound")
        // A route we have, with a method we do not: still Komunitin's shape, our status and code.
        const put = yield* jsonApi("PUT", pathOf(c.code, "/currency"), { key: c.key, body: {} })
        assertKomunitinError(put, 405, "METHOD_NOT_ALLOWED")
      }))
  })
})
