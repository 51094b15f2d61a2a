import type { HttpClientResponse } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { codeOf } from "./fixtures/bodies.js"
import { type ApiClient, apiClient, expectError, expectStatus } from "./fixtures/client.js"
import { actor, community } from "./fixtures/community.js"
import { makeEvent, type TestEvent } from "./fixtures/events.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { login, makeSuperAdmin, makeUser, TEST_PASSWORD } from "./fixtures/users.js"

/** Routes anyone may read (no token needed), through the typed client; `event` is an event of the community. */
const publicReads = (
  client: ApiClient,
  event: TestEvent
): ReadonlyArray<Effect.Effect<readonly [unknown, HttpClientResponse.HttpClientResponse], unknown>> => [
  client.tenancy.current({ withResponse: true }),
  client.listings.list({ urlParams: {}, withResponse: true }),
  client.events.list({ urlParams: {}, withResponse: true }),
  client.events.get({ path: { id: event.id }, withResponse: true }),
  client.eventCalendar.list({ urlParams: {}, withResponse: true }),
  client.organisations.directory({ urlParams: {}, withResponse: true }),
  client.opportunities.list({ urlParams: {}, withResponse: true })
]

/** The same routes as paths, for the raw checks of what a refused response must not carry. */
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
        for (const client of [a.visitor.client, a.member.client]) {
          for (const read of publicReads(client, event)) yield* read.pipe(expectStatus(200))
        }
      }))

    it.effect("another community's token, an unknown token or a malformed header is 401 on public reads too", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const event = yield* makeEvent(a.member)
        // Raw: the refused body must not carry the event, which the typed client would not show.
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
        const foreign = yield* apiClient({ ...a.anonymous, authorization: b.memberHeaders.authorization })
        yield* foreign.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
        yield* foreign.wallet.get().pipe(expectError(401, "AUTH_REQUIRED"))
        const { client } = yield* actor(a.member)
        yield* client.session.logout({ withResponse: true }).pipe(expectStatus(200))
        yield* client.listings.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
      }))

    it.effect("a session cookie of another community is 401 on public reads; its own cookie reads", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const user = yield* makeUser(b.tenant)
        const signIn = yield* apiClient({ ...b.anonymous, ...fromIp(randomIp()) })
        const [, res] = yield* signIn.auth.login({
          payload: { email: user.email, password: TEST_PASSWORD, remember: "cookie" },
          withResponse: true
        })
        const cookie = `tb_session=${sessionCookieOf(res.headers["set-cookie"])}`
        const elsewhere = yield* apiClient({ ...a.anonymous, cookie })
        yield* elsewhere.listings.list({ urlParams: {} }).pipe(expectError(401, "AUTH_REQUIRED"))
        const home = yield* apiClient({ ...b.anonymous, cookie })
        yield* home.listings.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
      }))

    it.effect("a platform super-admin's token is good in every community", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const admin = yield* makeSuperAdmin()
        const tokens = yield* login(admin)
        const client = yield* apiClient({ ...a.anonymous, authorization: `Bearer ${tokens.access_token}` })
        yield* client.listings.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
        yield* client.adminUsers.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
      }))

    it.effect("sign-in routes authenticate by their body: a stale or foreign token sent along is ignored", () =>
      Effect.gen(function*() {
        const a = yield* community()
        const b = yield* community()
        const stale = yield* apiClient({
          ...tenantHeaders(a.tenant),
          ...fromIp(randomIp()),
          authorization: b.memberHeaders.authorization
        })
        const signedIn = yield* stale.auth.login({
          payload: { email: a.member.email, password: TEST_PASSWORD },
          withResponse: true
        }).pipe(expectStatus(200))
        const refreshed = yield* stale.auth.refresh({
          payload: { refresh_token: signedIn.refresh_token },
          withResponse: true
        }).pipe(expectStatus(200))
        assert.strictEqual(refreshed.user.id, a.member.id)
      }))
  }
)
