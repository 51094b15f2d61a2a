import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { codeOf, type ErrorBody, sortedFieldsOf as fieldsOf } from "./fixtures/bodies.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { authHeaders, login, makeUser, TEST_PASSWORD } from "./fixtures/users.js"

const post = (tenant: { id: number }, path: string, body: unknown, headers: Record<string, string> = {}) =>
  rawRequest("POST", path, { headers: { ...tenantHeaders(tenant), ...headers }, body: JSON.stringify(body) })

const openTenant = () => makeTenant({ settings: { registration_requires_approval: false } })

const LEGACY_SECRET = "legacy-secret-for-tests-0123456789"

layer(TestApp({ LEGACY_JWT_SECRET: LEGACY_SECRET }), { excludeTestServices: true, timeout: "120 seconds" })(
  "identity",
  (it) => {
    describe("register", () => {
      it.effect("creates an active member where no approval is required, and records UserRegistered", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          const res = yield* post(tenant, "/api/v2/auth/register", {
            email: "Ann@Example.org",
            password: "long enough",
            first_name: "Ann",
            last_name: "Lee",
            preferred_language: "de"
          })
          assert.strictEqual(res.status, 201)
          const { data } = res.body as { data: { user: Record<string, unknown>; requires_approval: boolean } }
          assert.strictEqual(data.requires_approval, false)
          assert.deepInclude(data.user, {
            tenant_id: tenant.id,
            email: "Ann@Example.org",
            role: "member",
            status: "active",
            is_approved: true,
            is_admin: false,
            preferred_language: "de"
          })
          const sql = yield* SqlClient.SqlClient
          const events = yield* sql<{ payload: { user_id: number } }>`
          SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = 'UserRegistered'`
          assert.deepStrictEqual(events.map((e) => e.payload.user_id), [data.user["id"]])
          const loggedIn = yield* post(tenant, "/api/v2/auth/login", {
            email: "ann@example.org",
            password: "long enough"
          })
          assert.strictEqual(loggedIn.status, 200)
        }))

      it.effect("leaves the member pending where approval is required (the default); login is 403 until approved", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const res = yield* post(tenant, "/api/v2/auth/register", {
            email: "bo@example.org",
            password: "long enough",
            first_name: "Bo",
            last_name: "Ek"
          })
          assert.strictEqual(res.status, 201)
          const { data } = res.body as {
            data: { user: { status: string; is_approved: boolean }; requires_approval: boolean }
          }
          assert.deepStrictEqual([data.requires_approval, data.user.status, data.user.is_approved], [
            true,
            "pending",
            false
          ])
          const denied = yield* post(tenant, "/api/v2/auth/login", { email: "bo@example.org", password: "long enough" })
          assert.strictEqual(denied.status, 403)
          assert.strictEqual(codeOf(denied.body), "AUTH_ACCOUNT_PENDING_APPROVAL")
        }))

      it.effect("refuses a taken e-mail (any case) with 409 on field email; the same e-mail is free in another tenant", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          const other = yield* openTenant()
          const body = { email: "cy@example.org", password: "long enough", first_name: "Cy", last_name: "Do" }
          assert.strictEqual((yield* post(tenant, "/api/v2/auth/register", body)).status, 201)
          const again = yield* post(tenant, "/api/v2/auth/register", { ...body, email: "CY@example.ORG" })
          assert.strictEqual(again.status, 409)
          assert.deepStrictEqual((again.body as ErrorBody).errors, [
            { code: "ALREADY_EXISTS", message: "An account with this e-mail exists", field: "email" }
          ])
          assert.strictEqual((yield* post(other, "/api/v2/auth/register", body)).status, 201)
        }))

      it.effect("bad input is 422 per field, never 5xx", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          const wrongTypes = yield* post(tenant, "/api/v2/auth/register", {
            email: ["x@example.org"],
            password: 12345678,
            first_name: "",
            last_name: "Ok",
            preferred_language: "it"
          })
          assert.strictEqual(wrongTypes.status, 422)
          assert.deepStrictEqual(fieldsOf(wrongTypes.body), ["email", "first_name", "password", "preferred_language"])
          const short = yield* post(tenant, "/api/v2/auth/register", {
            email: "not-an-email",
            password: "short",
            first_name: "A",
            last_name: "B"
          })
          assert.deepStrictEqual(fieldsOf(short.body), ["email", "password"])
        }))
    })

    describe("login", () => {
      it.effect("answers tokens and the user (D4 shape), on /api/v2/auth/login and the /api/auth/login alias", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant, { firstName: "Di" })
          for (const path of ["/api/v2/auth/login", "/api/auth/login"]) {
            const res = yield* post(tenant, path, { email: user.email.toUpperCase(), password: TEST_PASSWORD })
            assert.strictEqual(res.status, 200, path)
            const body = res.body as Record<string, unknown> & { user: Record<string, unknown> }
            assert.strictEqual(body["token"], body["access_token"])
            assert.strictEqual(body["token_type"], "Bearer")
            assert.strictEqual(body["expires_in"], 900)
            assert.strictEqual(body["refresh_expires_in"], 2_592_000)
            assert.notStrictEqual(body["refresh_token"], body["access_token"])
            assert.deepStrictEqual(Object.keys(body.user).sort(), [
              "avatar_url",
              "email",
              "federation_opt_in",
              "first_name",
              "id",
              "is_admin",
              "is_approved",
              "is_god",
              "is_super_admin",
              "last_name",
              "preferred_language",
              "role",
              "status",
              "tenant_id"
            ])
            assert.deepInclude(body.user, { id: user.id, first_name: "Di", tenant_id: tenant.id })
          }
        }))

      it.effect("wrong password and unknown e-mail are the same 401, taking comparable time", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const timed = (body: unknown) =>
            Effect.gen(function*() {
              const start = performance.now()
              const res = yield* post(tenant, "/api/v2/auth/login", body)
              return { res, ms: performance.now() - start }
            })
          const wrong = yield* timed({ email: user.email, password: "not the password" })
          const unknown = yield* timed({ email: "nobody@example.org", password: "not the password" })
          for (const { res } of [wrong, unknown]) {
            assert.strictEqual(res.status, 401)
            assert.deepStrictEqual((res.body as ErrorBody).errors, [
              { code: "AUTH_INVALID_CREDENTIALS", message: "E-mail or password is wrong" }
            ])
          }
          // Both verify a password hash; an unknown e-mail must not answer markedly faster.
          assert.isAbove(unknown.ms, wrong.ms * 0.3)
        }))

      it.effect("suspended and banned accounts are 403 AUTH_ACCOUNT_SUSPENDED; wrong types are 422", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          for (const status of ["suspended", "banned"] as const) {
            const user = yield* makeUser(tenant, { status })
            const res = yield* post(tenant, "/api/v2/auth/login", { email: user.email, password: TEST_PASSWORD })
            assert.strictEqual(res.status, 403)
            assert.strictEqual(codeOf(res.body), "AUTH_ACCOUNT_SUSPENDED")
          }
          const wrongTypes = yield* post(tenant, "/api/v2/auth/login", { email: ["a"], password: 5 })
          assert.strictEqual(wrongTypes.status, 422)
          assert.deepStrictEqual(fieldsOf(wrongTypes.body), ["email", "password"])
          const missing = yield* post(tenant, "/api/v2/auth/login", {})
          assert.deepStrictEqual(fieldsOf(missing.body), ["email", "password"])
        }))
    })

    describe("tokens", () => {
      it.effect("refresh rotates; the used token again within 5 s is 409, later it revokes the whole family", () =>
        Effect.gen(function*() {
          const sql = yield* SqlClient.SqlClient
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const first = yield* login(user)
          const rotated = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: first.refresh_token })
          assert.strictEqual(rotated.status, 200)
          const second = rotated.body as { access_token: string; refresh_token: string; user: { id: number } }
          assert.notStrictEqual(second.refresh_token, first.refresh_token)
          assert.strictEqual(second.user.id, user.id)

          const race = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: first.refresh_token })
          assert.strictEqual(race.status, 409)
          assert.strictEqual(codeOf(race.body), "AUTH_REFRESH_SUPERSEDED")
          const stillFine = yield* rawRequest("GET", "/api/v2/users/me", {
            headers: { ...tenantHeaders(tenant), authorization: `Bearer ${second.access_token}` }
          })
          assert.strictEqual(stillFine.status, 200, "a reuse inside the grace window revokes nothing")

          // Later reuse of the consumed token is treated as theft: the family dies.
          yield* sql`UPDATE refresh_tokens SET consumed_at = now() - interval '10 seconds' WHERE consumed_at IS NOT NULL
                   AND session_id = (SELECT session_id FROM refresh_tokens WHERE consumed_at IS NOT NULL
                                     ORDER BY consumed_at DESC LIMIT 1)`
          const replay = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: first.refresh_token })
          assert.strictEqual(replay.status, 401)
          assert.strictEqual(codeOf(replay.body), "AUTH_TOKEN_EXPIRED")
          const newest = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: second.refresh_token })
          assert.strictEqual(newest.status, 401)
          const access = yield* rawRequest("GET", "/api/v2/users/me", {
            headers: { ...tenantHeaders(tenant), authorization: `Bearer ${second.access_token}` }
          })
          assert.strictEqual(access.status, 401)
          assert.strictEqual(codeOf(access.body), "AUTH_REQUIRED")
        }))

      it.effect("refresh with an unknown, non-string or other tenant's token is refused without a 5xx", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const other = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const tokens = yield* login(user)
          const unknown = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: "nope" })
          assert.deepStrictEqual([unknown.status, codeOf(unknown.body)], [401, "AUTH_TOKEN_EXPIRED"])
          const notString = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: 42 })
          assert.deepStrictEqual([notString.status, fieldsOf(notString.body)], [422, ["refresh_token"]])
          const elsewhere = yield* post(other, "/api/v2/auth/refresh", { refresh_token: tokens.refresh_token })
          assert.strictEqual(elsewhere.status, 401)
          const home = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: tokens.refresh_token })
          assert.strictEqual(home.status, 200, "a refused attempt elsewhere does not consume the token")
        }))

      it.effect("logout stops the session's access and refresh tokens at once", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const tokens = yield* login(user)
          const headers = { ...tenantHeaders(tenant), authorization: `Bearer ${tokens.access_token}` }
          const out = yield* rawRequest("POST", "/api/v2/auth/logout", { headers })
          assert.deepStrictEqual([out.status, out.body], [200, { data: { logged_out: true }, meta: {} }])
          const me = yield* rawRequest("GET", "/api/v2/users/me", { headers })
          assert.deepStrictEqual([me.status, codeOf(me.body)], [401, "AUTH_REQUIRED"])
          const refreshed = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: tokens.refresh_token })
          assert.strictEqual(refreshed.status, 401)
          const again = yield* rawRequest("POST", "/api/v2/auth/logout", { headers })
          assert.strictEqual(again.status, 401)
        }))

      it.effect("a token of tenant A on tenant B is 401; no token or a junk token is 401 AUTH_REQUIRED", () =>
        Effect.gen(function*() {
          const a = yield* makeTenant()
          const b = yield* makeTenant()
          const user = yield* makeUser(a)
          const tokens = yield* login(user)
          const crossed = yield* rawRequest("GET", "/api/v2/users/me", {
            headers: { ...tenantHeaders(b), authorization: `Bearer ${tokens.access_token}` }
          })
          assert.deepStrictEqual([crossed.status, codeOf(crossed.body)], [401, "AUTH_REQUIRED"])
          for (const authorization of [undefined, "Bearer ", "Bearer junk", "Basic abc"]) {
            const res = yield* rawRequest("GET", "/api/v2/users/me", {
              headers: { ...tenantHeaders(a), ...(authorization ? { authorization } : {}) }
            })
            assert.deepStrictEqual([res.status, codeOf(res.body)], [401, "AUTH_REQUIRED"], String(authorization))
          }
        }))
    })

    describe("legacy JWTs", () => {
      const sign = (claims: Record<string, unknown>, secret = LEGACY_SECRET, alg = "HS256") =>
        Effect.promise(() => new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret)))
      const me = (tenant: { id: number }, token: string) =>
        rawRequest("GET", "/api/v2/users/me", {
          headers: { ...tenantHeaders(tenant), authorization: `Bearer ${token}` }
        })
      const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

      it.effect("an HS256 JWT with user_id, tenant_id and exp is accepted", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const res = yield* me(tenant, yield* sign({ user_id: user.id, tenant_id: tenant.id, exp: inAnHour() }))
          assert.strictEqual(res.status, 200)
          assert.strictEqual((res.body as { data: { id: number } }).data.id, user.id)
        }))

      it.effect("bad signature, expiry, alg none, another algorithm, missing exp, or another tenant are 401", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const other = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const claims = { user_id: user.id, tenant_id: tenant.id, exp: inAnHour() }
          const unsigned = [
            Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url"),
            Buffer.from(JSON.stringify(claims)).toString("base64url"),
            ""
          ].join(".")
          const cases: Array<[string, string, { id: number }]> = [
            ["bad signature", yield* sign(claims, "another-secret-of-enough-length-000"), tenant],
            ["expired", yield* sign({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 }), tenant],
            ["alg none", unsigned, tenant],
            ["HS512", yield* sign(claims, LEGACY_SECRET, "HS512"), tenant],
            ["no exp", yield* sign({ user_id: user.id, tenant_id: tenant.id }), tenant],
            ["claims name another tenant", yield* sign({ ...claims, tenant_id: other.id }), tenant],
            ["used on another tenant", yield* sign(claims), other]
          ]
          for (const [name, token, on] of cases) {
            const res = yield* me(on, token)
            assert.deepStrictEqual([res.status, codeOf(res.body)], [401, "AUTH_REQUIRED"], name)
          }
        }))
    })

    describe("cookie sessions", () => {
      const cookieValue = (setCookie: string | undefined, name: string) =>
        setCookie?.split(/,(?=\s*\w+=)/).map((c) => c.trim()).find((c) => c.startsWith(`${name}=`))?.split(";")[0]
          ?.slice(
            name.length + 1
          )

      it.effect("remember=cookie sets an HttpOnly SameSite=Lax cookie; unsafe requests need the CSRF token", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const res = yield* post(tenant, "/api/v2/auth/login", {
            email: user.email,
            password: TEST_PASSWORD,
            remember: "cookie"
          })
          assert.strictEqual(res.status, 200)
          const setCookie = res.headers["set-cookie"]
          assert.match(setCookie ?? "", /tb_session=[^;]+;.*HttpOnly/i)
          assert.match(setCookie ?? "", /SameSite=Lax/i)
          const session = cookieValue(setCookie, "tb_session")!

          const withCookie = (cookie: string, extra: Record<string, string> = {}) => ({
            ...tenantHeaders(tenant),
            cookie,
            ...extra
          })
          const read = yield* rawRequest("GET", "/api/v2/users/me", { headers: withCookie(`tb_session=${session}`) })
          assert.strictEqual(read.status, 200)

          const body = JSON.stringify({ first_name: "Cookie" })
          const noCsrf = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers: withCookie(`tb_session=${session}`),
            body
          })
          assert.deepStrictEqual([noCsrf.status, codeOf(noCsrf.body)], [403, "CSRF_TOKEN_MISMATCH"])

          const csrf = yield* rawRequest("GET", "/api/v2/csrf-token", { headers: tenantHeaders(tenant) })
          const token = (csrf.body as { success: boolean; data: { csrf_token: string } }).data.csrf_token
          assert.strictEqual((csrf.body as { success: boolean }).success, true)
          assert.strictEqual(cookieValue(csrf.headers["set-cookie"], "tb_csrf"), token)

          const wrongCsrf = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers: withCookie(`tb_session=${session}; tb_csrf=${token}`, { "x-csrf-token": "forged" }),
            body
          })
          assert.strictEqual(wrongCsrf.status, 403)
          const ok = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers: withCookie(`tb_session=${session}; tb_csrf=${token}`, { "x-csrf-token": token }),
            body
          })
          assert.strictEqual(ok.status, 200)
          assert.strictEqual((ok.body as { data: { first_name: string } }).data.first_name, "Cookie")

          const bearer = yield* authHeaders(user)
          const bearerWrite = yield* rawRequest("PUT", "/api/v2/users/me", { headers: bearer, body })
          assert.strictEqual(bearerWrite.status, 200, "bearer callers never need a CSRF token")

          const out = yield* rawRequest("POST", "/api/v2/auth/logout", {
            headers: withCookie(`tb_session=${session}; tb_csrf=${token}`, { "x-csrf-token": token })
          })
          assert.strictEqual(out.status, 200)
          assert.match(out.headers["set-cookie"] ?? "", /tb_session=;.*Max-Age=0/i)
          const after = yield* rawRequest("GET", "/api/v2/users/me", { headers: withCookie(`tb_session=${session}`) })
          assert.strictEqual(after.status, 401)
        }))
    })

    describe("profiles", () => {
      it.effect("GET|PUT /users/me round-trips profile fields; unsupported language is 422", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const headers = yield* authHeaders(user)
          const put = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers,
            body: JSON.stringify({
              bio: "I fix bikes",
              location: "Ghent",
              preferred_language: "fr",
              federation_opt_in: true
            })
          })
          assert.strictEqual(put.status, 200)
          const me = yield* rawRequest("GET", "/api/v2/users/me", { headers })
          assert.deepInclude((me.body as { data: object }).data, {
            id: user.id,
            bio: "I fix bikes",
            location: "Ghent",
            preferred_language: "fr",
            federation_opt_in: true
          })
          const cleared = yield* rawRequest("PUT", "/api/v2/users/me", { headers, body: JSON.stringify({ bio: null }) })
          assert.strictEqual((cleared.body as { data: { bio: null } }).data.bio, null)
          const bad = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers,
            body: JSON.stringify({ preferred_language: "it", first_name: 3 })
          })
          assert.deepStrictEqual([bad.status, fieldsOf(bad.body)], [422, ["first_name", "preferred_language"]])
        }))

      it.effect("notification preferences default on and merge partial updates", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const headers = yield* authHeaders(yield* makeUser(tenant))
          const initial = yield* rawRequest("GET", "/api/v2/users/me/notifications", { headers })
          assert.deepStrictEqual((initial.body as { data: object }).data, {
            email_transactions: true,
            email_messages: true,
            email_reviews: true,
            push_enabled: true
          })
          yield* rawRequest("PUT", "/api/v2/users/me/notifications", {
            headers,
            body: JSON.stringify({ email_reviews: false })
          })
          const after = yield* rawRequest("GET", "/api/v2/users/me/notifications", { headers })
          assert.deepInclude((after.body as { data: object }).data, { email_reviews: false, email_messages: true })
          const bad = yield* rawRequest("PUT", "/api/v2/users/me/notifications", {
            headers,
            body: JSON.stringify({ push_enabled: "yes" })
          })
          assert.deepStrictEqual([bad.status, fieldsOf(bad.body)], [422, ["push_enabled"]])
        }))

      it.effect("public profiles: another member's public fields only; another tenant's user or a bad id is 404", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const other = yield* makeTenant()
          const viewer = yield* authHeaders(yield* makeUser(tenant))
          const neighbour = yield* makeUser(tenant, { firstName: "Eve" })
          const stranger = yield* makeUser(other)
          const res = yield* rawRequest("GET", `/api/v2/users/${neighbour.id}`, { headers: viewer })
          assert.strictEqual(res.status, 200)
          const data = (res.body as { data: Record<string, unknown> }).data
          assert.strictEqual(data["first_name"], "Eve")
          assert.notProperty(data, "email")
          for (const id of [String(stranger.id), "abc", "0"]) {
            const missing = yield* rawRequest("GET", `/api/v2/users/${id}`, { headers: viewer })
            assert.deepStrictEqual([missing.status, codeOf(missing.body)], [404, "NOT_FOUND"], id)
          }
          const anonymous = yield* rawRequest("GET", `/api/v2/users/${neighbour.id}`, {
            headers: tenantHeaders(tenant)
          })
          assert.strictEqual(anonymous.status, 401)
        }))
    })
  }
)
