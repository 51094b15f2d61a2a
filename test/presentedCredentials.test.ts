import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf } from "./fixtures/bodies.js"
import { community } from "./fixtures/community.js"
import { makeEvent } from "./fixtures/events.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, login, makeSuperAdmin, makeUser, TEST_PASSWORD } from "./fixtures/users.js"

/** Routes anyone may read (no token needed); `{event}` is an event of the community addressed. */
const PUBLIC_READS = [
  "/api/v2/tenant",
  "/api/v2/listings",
  "/api/v2/events",
  "/api/v2/events/{event}",
  "/api/v2/events.ics",
  "/api/v2/volunteering/organisations",
  "/api/v2/volunteering/opportunities"
]

const sessionCookieOf = (setCookie: string | undefined) => /tb_session=([^;]+)/.exec(setCookie ?? "")?.[1]

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "credentials sent with a request must be good in its community (D4)",
  (it) => {
    it.effect("public reads answer 200 anonymously and with the community's own token", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const event = yield* makeEvent(a.member)
        for (const path of PUBLIC_READS.map((p) => p.replace("{event}", String(event.id)))) {
          assert.strictEqual((yield* rawRequest("GET", path, { headers: a.anonymous })).status, 200, path)
          assert.strictEqual((yield* rawRequest("GET", path, { headers: a.memberHeaders })).status, 200, path)
        }
      }))

    it.effect("another community's token, an unknown token or a malformed header is 401 on public reads too", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const event = yield* makeEvent(a.member)
        const foreign = { ...a.anonymous, authorization: b.memberHeaders.authorization }
        const unknown = { ...a.anonymous, authorization: "Bearer not-a-token-of-anyone" }
        const malformed = { ...a.anonymous, authorization: "Basic dXNlcjpwYXNz" }
        for (const path of PUBLIC_READS.map((p) => p.replace("{event}", String(event.id)))) {
          for (const headers of [foreign, unknown, malformed]) {
            const res = yield* rawRequest("GET", path, { headers })
            assert.strictEqual(res.status, 401, `${path} ${headers.authorization}`)
            assert.strictEqual(codeOf(res.body), "AUTH_REQUIRED")
            assert.notInclude(res.text, String(event.title))
          }
        }
      }))

    it.effect("on member routes the foreign token is 401 as well, and a logged-out token stops at once", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const foreign = { ...a.anonymous, authorization: b.memberHeaders.authorization }
        assert.strictEqual((yield* rawRequest("GET", "/api/v2/users/me", { headers: foreign })).status, 401)
        assert.strictEqual((yield* rawRequest("GET", "/api/v2/wallet", { headers: foreign })).status, 401)
        const headers = yield* authHeaders(a.member)
        assert.strictEqual((yield* rawRequest("POST", "/api/v2/auth/logout", { headers })).status, 200)
        const after = yield* rawRequest("GET", "/api/v2/listings", { headers })
        assert.strictEqual(after.status, 401)
      }))

    it.effect("a session cookie of another community is 401 on public reads; its own cookie reads", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const user = yield* makeUser(b.tenant)
        const res = yield* rawRequest("POST", "/api/v2/auth/login", {
          headers: { ...b.anonymous, ...fromIp(randomIp()) },
          body: JSON.stringify({ email: user.email, password: TEST_PASSWORD, remember: "cookie" })
        })
        const cookie = `tb_session=${sessionCookieOf(res.headers["set-cookie"])}`
        const elsewhere = yield* rawRequest("GET", "/api/v2/listings", { headers: { ...a.anonymous, cookie } })
        assert.strictEqual(elsewhere.status, 401)
        assert.strictEqual(codeOf(elsewhere.body), "AUTH_REQUIRED")
        const home = yield* rawRequest("GET", "/api/v2/listings", { headers: { ...b.anonymous, cookie } })
        assert.strictEqual(home.status, 200)
      }))

    it.effect("a platform super-admin's token is good in every community", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const admin = yield* makeSuperAdmin()
        const tokens = yield* login(admin)
        const headers = { ...a.anonymous, authorization: `Bearer ${tokens.access_token}` }
        assert.strictEqual((yield* rawRequest("GET", "/api/v2/listings", { headers })).status, 200)
        assert.strictEqual((yield* rawRequest("GET", "/api/v2/admin/users", { headers })).status, 200)
      }))

    it.effect("sign-in routes authenticate by their body: a stale or foreign token sent along is ignored", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const stale = {
          ...tenantHeaders(a.tenant),
          ...fromIp(randomIp()),
          authorization: b.memberHeaders.authorization
        }
        const signedIn = yield* rawRequest("POST", "/api/v2/auth/login", {
          headers: stale,
          body: JSON.stringify({ email: a.member.email, password: TEST_PASSWORD })
        })
        assert.strictEqual(signedIn.status, 200)
        const refreshed = yield* rawRequest("POST", "/api/v2/auth/refresh", {
          headers: stale,
          body: JSON.stringify({ refresh_token: (signedIn.body as { refresh_token: string }).refresh_token })
        })
        assert.strictEqual(refreshed.status, 200)
        assert.strictEqual((refreshed.body as { user: { id: number } }).user.id, a.member.id)
      }))
  }
)
