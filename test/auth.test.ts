import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { TenantId, UserId } from "@timebank/domain"
import { Effect } from "effect"
import { SignJWT } from "jose"
import { type ErrorBody, sortedFieldsOf as fieldsOf } from "./fixtures/bodies.js"
import { apiClient, expectError, expectStatus, failureOf } from "./fixtures/client.js"
import { actor, visitor } from "./fixtures/community.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { login, makeUser, TEST_PASSWORD } from "./fixtures/users.js"

/** A raw POST addressed to `tenant`, for bodies the contract refuses to send. */
const post = (tenant: { id: number }, path: string, body: unknown, headers: Record<string, string> = {}) =>
  rawRequest("POST", path, { headers: { ...tenantHeaders(tenant), ...headers }, body: JSON.stringify(body) })

/** The typed client of someone addressing `tenant` without a session. */
const anonymousIn = (tenant: { id: number }) => Effect.map(visitor(tenant), (v) => v.client)

/** The typed client of a bearer access token in `tenant`. */
const bearerIn = (tenant: { id: number }, accessToken: string) =>
  apiClient({ ...tenantHeaders(tenant), authorization: `Bearer ${accessToken}` })

const openTenant = () => makeTenant({ settings: { registration_requires_approval: false } })

const LEGACY_SECRET = "legacy-secret-for-tests-0123456789"

layer(TestApp({ LEGACY_JWT_SECRET: LEGACY_SECRET }), { excludeTestServices: true, timeout: "120 seconds" })(
  "identity",
  (it) => {
    describe("register", () => {
      it.effect("creates an active member where no approval is required, and records UserRegistered", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          const client = yield* anonymousIn(tenant)
          const { data } = yield* client.auth.register({
            payload: {
              email: "Ann@Example.org",
              password: "long enough",
              first_name: "Ann",
              last_name: "Lee",
              preferred_language: "de"
            },
            withResponse: true
          }).pipe(expectStatus(201))
          assert.strictEqual(data.requires_approval, false)
          assert.deepInclude(data.user, {
            tenant_id: TenantId.make(tenant.id),
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
          assert.deepStrictEqual(events.map((e) => e.payload.user_id), [data.user.id])
          yield* client.auth.login({
            payload: { email: "ann@example.org", password: "long enough" },
            withResponse: true
          })
            .pipe(expectStatus(200))
        }))

      it.effect("leaves the member pending where approval is required (the default); login is 403 until approved", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const client = yield* anonymousIn(tenant)
          const { data } = yield* client.auth.register({
            payload: { email: "bo@example.org", password: "long enough", first_name: "Bo", last_name: "Ek" },
            withResponse: true
          }).pipe(expectStatus(201))
          assert.deepStrictEqual([data.requires_approval, data.user.status, data.user.is_approved], [
            true,
            "pending",
            false
          ])
          yield* client.auth.login({ payload: { email: "bo@example.org", password: "long enough" } }).pipe(
            expectError(403, "AUTH_ACCOUNT_PENDING_APPROVAL")
          )
        }))

      it.effect("refuses a taken e-mail (any case) with 409 on field email; the same e-mail is free in another tenant", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          const other = yield* openTenant()
          const payload = { email: "cy@example.org", password: "long enough", first_name: "Cy", last_name: "Do" }
          const here = yield* anonymousIn(tenant)
          yield* here.auth.register({ payload, withResponse: true }).pipe(expectStatus(201))
          const again = yield* here.auth.register({ payload: { ...payload, email: "CY@example.ORG" } }).pipe(
            expectError(409, "ALREADY_EXISTS")
          )
          assert.deepStrictEqual(again.errors, [
            { code: "ALREADY_EXISTS", message: "An account with this e-mail exists", field: "email" }
          ])
          const there = yield* anonymousIn(other)
          yield* there.auth.register({ payload, withResponse: true }).pipe(expectStatus(201))
        }))

      it.effect("bad input is 422 per field, never 5xx", () =>
        Effect.gen(function*() {
          const tenant = yield* openTenant()
          // Bodies the contract refuses to send: raw.
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
          const client = yield* anonymousIn(tenant)
          const payload = { email: user.email.toUpperCase(), password: TEST_PASSWORD }
          for (
            const signIn of [
              client.auth.login({ payload, withResponse: true }),
              client.auth.loginLegacyPath({ payload, withResponse: true })
            ]
          ) {
            const body = yield* signIn.pipe(expectStatus(200))
            assert.strictEqual(body.token, body.access_token)
            assert.strictEqual(body.token_type, "Bearer")
            assert.strictEqual(body.expires_in, 900)
            assert.strictEqual(body.refresh_expires_in, 2_592_000)
            assert.notStrictEqual(body.refresh_token, body.access_token)
            // The decoded user has exactly the fields of the answer (the server encodes with the same schema).
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
            assert.deepInclude(body.user, {
              id: UserId.make(user.id),
              first_name: "Di",
              tenant_id: TenantId.make(tenant.id)
            })
          }
        }))

      it.effect("wrong password and unknown e-mail are the same 401, taking comparable time", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const client = yield* anonymousIn(tenant)
          const timed = (payload: { email: string; password: string }) =>
            Effect.gen(function*() {
              const start = performance.now()
              const res = yield* client.auth.login({ payload }).pipe(expectError(401, "AUTH_INVALID_CREDENTIALS"))
              return { res, ms: performance.now() - start }
            })
          const wrong = yield* timed({ email: user.email, password: "not the password" })
          const unknown = yield* timed({ email: "nobody@example.org", password: "not the password" })
          for (const { res } of [wrong, unknown]) {
            assert.deepStrictEqual(res.errors, [
              { code: "AUTH_INVALID_CREDENTIALS", message: "E-mail or password is wrong" }
            ])
          }
          // Both verify a password hash; an unknown e-mail must not answer markedly faster.
          assert.isAbove(unknown.ms, wrong.ms * 0.3)
        }))

      it.effect("suspended and banned accounts are 403 AUTH_ACCOUNT_SUSPENDED; wrong types are 422", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const client = yield* anonymousIn(tenant)
          for (const status of ["suspended", "banned"] as const) {
            const user = yield* makeUser(tenant, { status })
            yield* client.auth.login({ payload: { email: user.email, password: TEST_PASSWORD } }).pipe(
              expectError(403, "AUTH_ACCOUNT_SUSPENDED")
            )
          }
          // Bodies the contract refuses to send: raw.
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
          const client = yield* anonymousIn(tenant)
          const refresh = (refresh_token: string) =>
            client.auth.refresh({ payload: { refresh_token }, withResponse: true })
          const second = yield* refresh(first.refresh_token).pipe(expectStatus(200))
          assert.notStrictEqual(second.refresh_token, first.refresh_token)
          assert.strictEqual(second.user.id, user.id)

          yield* refresh(first.refresh_token).pipe(expectError(409, "AUTH_REFRESH_SUPERSEDED"))
          // A reuse inside the grace window revokes nothing.
          const secondSession = yield* bearerIn(tenant, second.access_token)
          yield* secondSession.users.me({ withResponse: true }).pipe(expectStatus(200))

          // Later reuse of the consumed token is treated as theft: the family dies.
          yield* sql`UPDATE refresh_tokens SET consumed_at = now() - interval '10 seconds' WHERE consumed_at IS NOT NULL
                   AND session_id = (SELECT session_id FROM refresh_tokens WHERE consumed_at IS NOT NULL
                                     ORDER BY consumed_at DESC LIMIT 1)`
          yield* refresh(first.refresh_token).pipe(expectError(401, "AUTH_TOKEN_EXPIRED"))
          const newest = yield* failureOf(refresh(second.refresh_token))
          assert.strictEqual(newest.status, 401)
          yield* secondSession.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
        }))

      it.effect("refresh with an unknown, non-string or other tenant's token is refused without a 5xx", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const other = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const tokens = yield* login(user)
          const here = yield* anonymousIn(tenant)
          const there = yield* anonymousIn(other)
          yield* here.auth.refresh({ payload: { refresh_token: "nope" } }).pipe(expectError(401, "AUTH_TOKEN_EXPIRED"))
          // A body the contract refuses to send: raw.
          const notString = yield* post(tenant, "/api/v2/auth/refresh", { refresh_token: 42 })
          assert.deepStrictEqual([notString.status, fieldsOf(notString.body)], [422, ["refresh_token"]])
          const elsewhere = yield* failureOf(there.auth.refresh({ payload: { refresh_token: tokens.refresh_token } }))
          assert.strictEqual(elsewhere.status, 401)
          // A refused attempt elsewhere does not consume the token.
          yield* here.auth.refresh({ payload: { refresh_token: tokens.refresh_token }, withResponse: true }).pipe(
            expectStatus(200)
          )
        }))

      it.effect("logout stops the session's access and refresh tokens at once", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const tokens = yield* login(user)
          const client = yield* bearerIn(tenant, tokens.access_token)
          const out = yield* client.session.logout({ withResponse: true }).pipe(expectStatus(200))
          assert.deepStrictEqual(out, { data: { logged_out: true }, meta: {} })
          yield* client.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
          const refreshed = yield* failureOf(client.auth.refresh({ payload: { refresh_token: tokens.refresh_token } }))
          assert.strictEqual(refreshed.status, 401)
          const again = yield* failureOf(client.session.logout())
          assert.strictEqual(again.status, 401)
        }))

      it.effect("a token of tenant A on tenant B is 401; no token or a junk token is 401 AUTH_REQUIRED", () =>
        Effect.gen(function*() {
          const a = yield* makeTenant()
          const b = yield* makeTenant()
          const user = yield* makeUser(a)
          const tokens = yield* login(user)
          const crossed = yield* bearerIn(b, tokens.access_token)
          yield* crossed.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
          for (const authorization of [undefined, "Bearer ", "Bearer junk", "Basic abc"]) {
            const client = yield* apiClient({ ...tenantHeaders(a), ...(authorization ? { authorization } : {}) })
            yield* client.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
          }
        }))
    })

    describe("legacy JWTs", () => {
      const sign = (claims: Record<string, unknown>, secret = LEGACY_SECRET, alg = "HS256") =>
        Effect.promise(() => new SignJWT(claims).setProtectedHeader({ alg }).sign(new TextEncoder().encode(secret)))
      const me = (tenant: { id: number }, token: string) =>
        Effect.flatMap(bearerIn(tenant, token), (client) => client.users.me({ withResponse: true }))
      const inAnHour = () => Math.floor(Date.now() / 1000) + 3600

      it.effect("an HS256 JWT with user_id, tenant_id and exp is accepted", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const res = yield* me(tenant, yield* sign({ user_id: user.id, tenant_id: tenant.id, exp: inAnHour() })).pipe(
            expectStatus(200)
          )
          assert.strictEqual(res.data.id, user.id)
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
          for (const [, token, on] of cases) yield* me(on, token).pipe(expectError(401, "AUTH_REQUIRED"))
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
          const anonymous = yield* anonymousIn(tenant)
          const [, res] = yield* anonymous.auth.login({
            payload: { email: user.email, password: TEST_PASSWORD, remember: "cookie" },
            withResponse: true
          })
          assert.strictEqual(res.status, 200)
          const setCookie = res.headers["set-cookie"]
          assert.match(setCookie ?? "", /tb_session=[^;]+;.*HttpOnly/i)
          assert.match(setCookie ?? "", /SameSite=Lax/i)
          const session = cookieValue(setCookie, "tb_session")!

          const withCookie = (cookie: string, extra: Record<string, string> = {}) =>
            apiClient({ ...tenantHeaders(tenant), cookie, ...extra })
          const sessionOnly = yield* withCookie(`tb_session=${session}`)
          yield* sessionOnly.users.me({ withResponse: true }).pipe(expectStatus(200))

          const payload = { first_name: "Cookie" }
          yield* sessionOnly.users.updateMe({ payload }).pipe(expectError(403, "CSRF_TOKEN_MISMATCH"))

          const [csrf, csrfResponse] = yield* anonymous.auth.csrfToken({ withResponse: true })
          const token = csrf.data.csrf_token
          assert.strictEqual(csrf.success, true)
          assert.strictEqual(cookieValue(csrfResponse.headers["set-cookie"], "tb_csrf"), token)

          const forged = yield* withCookie(`tb_session=${session}; tb_csrf=${token}`, { "x-csrf-token": "forged" })
          const wrongCsrf = yield* failureOf(forged.users.updateMe({ payload }))
          assert.strictEqual(wrongCsrf.status, 403)
          const withCsrf = yield* withCookie(`tb_session=${session}; tb_csrf=${token}`, { "x-csrf-token": token })
          const ok = yield* withCsrf.users.updateMe({ payload, withResponse: true }).pipe(expectStatus(200))
          assert.strictEqual(ok.data.first_name, "Cookie")

          // Bearer callers never need a CSRF token.
          const bearer = yield* actor(user)
          yield* bearer.client.users.updateMe({ payload, withResponse: true }).pipe(expectStatus(200))

          const [, out] = yield* withCsrf.session.logout({ withResponse: true })
          assert.strictEqual(out.status, 200)
          assert.match(out.headers["set-cookie"] ?? "", /tb_session=;.*Max-Age=0/i)
          const after = yield* failureOf(sessionOnly.users.me())
          assert.strictEqual(after.status, 401)
        }))
    })

    describe("profiles", () => {
      it.effect("GET|PUT /users/me round-trips profile fields; unsupported language is 422", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const user = yield* makeUser(tenant)
          const { client, headers } = yield* actor(user)
          yield* client.users.updateMe({
            payload: { bio: "I fix bikes", location: "Ghent", preferred_language: "fr", federation_opt_in: true },
            withResponse: true
          }).pipe(expectStatus(200))
          const me = yield* client.users.me()
          assert.deepInclude(me.data, {
            id: UserId.make(user.id),
            bio: "I fix bikes",
            location: "Ghent",
            preferred_language: "fr",
            federation_opt_in: true
          })
          const cleared = yield* client.users.updateMe({ payload: { bio: null } })
          assert.strictEqual(cleared.data.bio, null)
          // A body the contract refuses to send: raw.
          const bad = yield* rawRequest("PUT", "/api/v2/users/me", {
            headers,
            body: JSON.stringify({ preferred_language: "it", first_name: 3 })
          })
          assert.deepStrictEqual([bad.status, fieldsOf(bad.body)], [422, ["first_name", "preferred_language"]])
        }))

      it.effect("notification preferences default on and merge partial updates", () =>
        Effect.gen(function*() {
          const tenant = yield* makeTenant()
          const { client, headers } = yield* actor(yield* makeUser(tenant))
          const initial = yield* client.users.notifications()
          assert.deepStrictEqual(initial.data, {
            email_transactions: true,
            email_messages: true,
            email_reviews: true,
            push_enabled: true,
            email_enabled: true
          })
          yield* client.users.updateNotifications({ payload: { email_reviews: false } })
          const after = yield* client.users.notifications()
          assert.deepInclude(after.data, { email_reviews: false, email_messages: true })
          // A body the contract refuses to send: raw.
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
          const viewer = yield* actor(yield* makeUser(tenant))
          const neighbour = yield* makeUser(tenant, { firstName: "Eve" })
          const stranger = yield* makeUser(other)
          const profile = yield* viewer.client.users.get({
            path: { id: UserId.make(neighbour.id) },
            withResponse: true
          })
            .pipe(expectStatus(200))
          assert.strictEqual(profile.data.first_name, "Eve")
          // What goes over the wire, not only what the contract decodes: raw.
          const res = yield* rawRequest("GET", `/api/v2/users/${neighbour.id}`, { headers: viewer.headers })
          assert.notProperty((res.body as { data: Record<string, unknown> }).data, "email")
          yield* viewer.client.users.get({ path: { id: UserId.make(stranger.id) } }).pipe(expectError(404, "NOT_FOUND"))
          // Ids the contract cannot express: raw.
          for (const id of ["abc", "0"]) {
            const missing = yield* rawRequest("GET", `/api/v2/users/${id}`, { headers: viewer.headers })
            assert.deepStrictEqual(
              [missing.status, (missing.body as ErrorBody).errors[0]!.code],
              [404, "NOT_FOUND"],
              id
            )
          }
          const anonymous = yield* failureOf(
            Effect.flatMap(anonymousIn(tenant), (c) => c.users.get({ path: { id: UserId.make(neighbour.id) } }))
          )
          assert.strictEqual(anonymous.status, 401)
        }))
    })
  }
)
