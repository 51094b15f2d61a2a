import { assert, layer } from "@effect/vitest"
import { defaultCurrencyCode } from "@timebank/domain"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { codeOf, fieldOf } from "../fixtures/bodies.js"
import { expectError, expectStatus } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { rawRequest, TestApp } from "../fixtures/TestApp.js"

const SETTINGS = "/api/v2/admin/federation/settings"
const ACCOUNT = "/api/v2/federation/account"
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
/** A code no other test picks: a letter, then three letters or digits. */
const freshCode = () => {
  const bytes = randomBytes(4)
  return ALNUM[bytes[0]! % 26]! + [1, 2, 3].map((i) => ALNUM[bytes[i]! % 36]!).join("")
}

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "federation: currency code and accounts",
  (it) => {
    it.effect("a member's account: a UUID made on first use, its code the default currency code + the user id", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const code = defaultCurrencyCode(c.tenant.id)
        assert.match(code, /^[A-Z0-9]{4}$/)
        const first = yield* c.member.client.federationAccount.get({ withResponse: true }).pipe(expectStatus(200))
        assert.strictEqual(first.data.currency_code, code)
        assert.match(first.data.account_id, UUID)
        assert.strictEqual(first.data.account_code, `${code}${String(c.member.id).padStart(4, "0")}`)
        assert.isTrue(first.data.href.endsWith(`/api/v1/federation/${code}/accounts/${first.data.account_id}`))
        // The same account ever after; another member has another one.
        const again = yield* c.member.client.federationAccount.get()
        assert.deepStrictEqual(again.data, first.data)
        const admins = yield* c.admin.client.federationAccount.get()
        assert.notStrictEqual(admins.data.account_id, first.data.account_id)
        // Without a session: 401.
        const anonymous = yield* rawRequest("GET", ACCOUNT, { headers: c.anonymous })
        assert.strictEqual(anonymous.status, 401)
      }))

    it.effect("the admin sets the currency code; accounts keep their UUID and take the new code; null restores the default", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const before = yield* c.member.client.federationAccount.get()
        const code = freshCode()
        const set = yield* c.admin.client.adminFederationSettings.update({
          payload: { currency_code: code },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.strictEqual(set.data.currency_code, code)
        assert.strictEqual((yield* c.admin.client.adminFederationSettings.get()).data.currency_code, code)
        const after = yield* c.member.client.federationAccount.get()
        assert.strictEqual(after.data.account_id, before.data.account_id)
        assert.strictEqual(after.data.account_code, `${code}${String(c.member.id).padStart(4, "0")}`)
        // Toggles sent alongside are kept apart from the code.
        const both = yield* c.admin.client.adminFederationSettings.update({ payload: { events: true } })
        assert.strictEqual(both.data.currency_code, code)
        assert.isTrue(both.data.events)

        const reset = yield* c.admin.client.adminFederationSettings.update({ payload: { currency_code: null } })
        assert.strictEqual(reset.data.currency_code, defaultCurrencyCode(c.tenant.id))
      }))

    it.effect("a code another community uses is 409 CURRENCY_CODE_TAKEN; a malformed one is 422 on currency_code", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const other = yield* community({ signIn: "token" })
        const code = freshCode()
        yield* other.admin.client.adminFederationSettings.update({ payload: { currency_code: code } })
        yield* c.admin.client.adminFederationSettings.update({ payload: { currency_code: code } }).pipe(
          expectError(409, "CURRENCY_CODE_TAKEN")
        )
        assert.strictEqual(
          (yield* c.admin.client.adminFederationSettings.get()).data.currency_code,
          defaultCurrencyCode(c.tenant.id)
        )
        // The same community may set its own code again.
        yield* other.admin.client.adminFederationSettings.update({ payload: { currency_code: code } })

        for (const bad of ["time", "1ABC", "ABCDE", "AB", "AB-C", 1234]) {
          const res = yield* rawRequest("PUT", SETTINGS, {
            headers: c.adminHeaders,
            body: JSON.stringify({ currency_code: bad })
          })
          assert.strictEqual(res.status, 422, `${String(bad)}: ${res.text}`)
          assert.strictEqual(codeOf(res.body), "VALIDATION_ERROR")
          assert.strictEqual(fieldOf(res.body), "currency_code")
        }
      }))

    it.effect("members and brokers cannot set the code (403); the code changes nothing in another community", () =>
      Effect.gen(function*() {
        const c = yield* community({ signIn: "token" })
        const other = yield* community({ signIn: "token" })
        const res = yield* rawRequest("PUT", SETTINGS, {
          headers: c.memberHeaders,
          body: JSON.stringify({ currency_code: freshCode() })
        })
        assert.strictEqual(res.status, 403)
        assert.strictEqual(
          (yield* c.admin.client.adminFederationSettings.get()).data.currency_code,
          defaultCurrencyCode(c.tenant.id)
        )
        yield* c.admin.client.adminFederationSettings.update({ payload: { currency_code: freshCode() } })
        assert.strictEqual(
          (yield* other.admin.client.adminFederationSettings.get()).data.currency_code,
          defaultCurrencyCode(other.tenant.id)
        )
      }))
  }
)
