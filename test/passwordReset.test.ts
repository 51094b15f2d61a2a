import { SqlClient } from "@effect/sql"
import { assert, describe, layer } from "@effect/vitest"
import { type Tenant, UserId } from "@timebank/domain"
import { hashToken } from "@timebank/server"
import { Effect } from "effect"
import { type ErrorBody, errorsOf, fieldsOf } from "./fixtures/bodies.js"
import { apiClient, expectError, expectStatus, outcomeOf, statusOf } from "./fixtures/client.js"
import { actor, community } from "./fixtures/community.js"
import { fromIp, randomIp } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { rawRequest, TestApp } from "./fixtures/TestApp.js"
import { login, makeAdmin, makeUser, type TestUser } from "./fixtures/users.js"

const REQUEST = "/api/v2/auth/password-reset"
const CONFIRM = "/api/v2/auth/password-reset/confirm"
const NEW_PASSWORD = "a brand new secret"
const ACCEPTED = { data: { accepted: true }, meta: {} }

type Headers = Record<string, string>

/** Every request from an address of its own unless `headers` names one, so the per-IP limit is met only on purpose. */
const clientFor = (headers: Headers) => apiClient({ ...fromIp(randomIp()), ...headers })

/** A raw POST (same addressing), for bodies the contract refuses to send and for wire-level checks. */
const post = (path: string, headers: Headers, body: unknown) =>
  rawRequest("POST", path, {
    headers: { ...fromIp(randomIp()), ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })

const requestReset = (tenant: { readonly id: number }, email: string, headers: Headers = {}) =>
  Effect.flatMap(
    clientFor({ ...tenantHeaders(tenant), ...headers }),
    (client) => client.auth.requestPasswordReset({ payload: { email }, withResponse: true })
  )

const confirm = (tenant: { readonly id: number }, payload: { readonly token: string; readonly password: string }) =>
  Effect.flatMap(
    clientFor(tenantHeaders(tenant)),
    (client) => client.auth.confirmPasswordReset({ payload, withResponse: true })
  )

const query = <A extends object>(f: (sql: SqlClient.SqlClient) => Effect.Effect<ReadonlyArray<A>, unknown>) =>
  Effect.flatMap(SqlClient.SqlClient, f).pipe(Effect.orDie)

interface Mail {
  readonly id: string
  readonly user_id: string | null
  readonly template: string
  readonly data: Record<string, unknown>
}

const mailsTo = (email: string) =>
  query((sql) =>
    sql<Mail>`SELECT id, user_id, template, data FROM mail_outbox WHERE lower(to_email) = lower(${email}) ORDER BY id`
  )

/** Reset links are mailed by a background fiber after the answer: wait until `count` mails are there (5 s at most). */
const awaitMails = (email: string, count = 1) =>
  Effect.gen(function*() {
    for (let i = 0; i < 200; i++) {
      const mails = yield* mailsTo(email)
      if (mails.length >= count) return mails
      yield* Effect.sleep("25 millis")
    }
    return yield* Effect.dieMessage(`no reset mail to ${email}`)
  })

/** The raw token of the newest reset mail to `user`. */
const tokenFor = (user: TestUser) => Effect.map(awaitMails(user.email), (mails) => String(mails.at(-1)!.data["token"]))

const tokensOf = (userId: number) =>
  query((sql) =>
    sql<{ token_hash: string; used: boolean; seconds_left: number }>`
      SELECT token_hash, used_at IS NOT NULL AS used, extract(epoch FROM expires_at - now())::float8 AS seconds_left
      FROM password_reset_tokens WHERE user_id = ${userId} ORDER BY expires_at`
  )

const passwordHashOf = (userId: number) =>
  Effect.map(
    query((sql) => sql<{ password_hash: string | null }>`SELECT password_hash FROM users WHERE id = ${userId}`),
    (rows) => rows[0]!.password_hash
  )

const eventsOf = (tenant: Tenant, type: string) =>
  Effect.map(
    query((sql) =>
      sql<{ payload: Record<string, unknown> }>`
        SELECT payload FROM outbox_events WHERE tenant_id = ${tenant.id} AND event_type = ${type} ORDER BY id`
    ),
    (rows) => rows.map((r) => r.payload)
  )

/** Every error answer is the D1 envelope: `{"errors": [{code, message, field?}]}` and nothing else. */
const assertEnvelope = (res: { status: number; body: unknown; text: string }, status: number, code: string) => {
  assert.strictEqual(res.status, status, res.text)
  assert.deepStrictEqual(Object.keys(res.body as object), ["errors"])
  const errors = (res.body as ErrorBody).errors
  assert.isAbove(errors.length, 0)
  for (const error of errors) {
    assert.includeMembers(["code", "message", "field"], Object.keys(error))
    assert.isString(error.message)
    assert.isNotEmpty(error.message)
  }
  assert.strictEqual(errors[0]!.code, code)
}

const loginStatus = (user: TestUser, password: string) =>
  Effect.flatMap(
    clientFor(tenantHeaders(user.tenant)),
    (client) => statusOf(client.auth.login({ payload: { email: user.email, password }, withResponse: true }))
  )

/** Communities of this file: their member, Mia, has not signed in over HTTP yet. */
const TOKENS_ONLY = { signIn: "token" } as const

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("password reset", (it) => {
  describe("the whole flow", () => {
    it.effect("request → mail with the token → confirm → new password works, old fails, sessions revoked, token used up", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const session = yield* login(member)
        const me = yield* apiClient({ ...tenantHeaders(tenant), authorization: `Bearer ${session.access_token}` })
        yield* me.users.me({ withResponse: true }).pipe(expectStatus(200))

        // The e-mail matches in any case and with spaces around it (which the typed client would trim: raw).
        const res = yield* post(REQUEST, tenantHeaders(tenant), { email: `  ${member.email.toUpperCase()} ` })
        assert.strictEqual(res.status, 202, res.text)
        assert.deepStrictEqual(res.body, ACCEPTED)

        const [mail] = yield* awaitMails(member.email)
        assert.strictEqual(mail!.template, "password_reset")
        assert.strictEqual(Number(mail!.user_id), member.id)
        assert.deepInclude(mail!.data, {
          email: member.email,
          first_name: "Mia",
          tenant_id: tenant.id,
          tenant_slug: tenant.slug,
          tenant_name: tenant.name,
          requested_by: "member"
        })
        const token = String(mail!.data["token"])
        assert.match(token, /^[\w-]{43}$/)
        // Stored only as its SHA-256, valid 60 minutes.
        const [stored] = yield* tokensOf(member.id)
        assert.strictEqual(stored!.token_hash, hashToken(token))
        assert.isFalse(stored!.used)
        assert.closeTo(stored!.seconds_left, 3600, 60)
        assert.closeTo(Date.parse(String(mail!.data["expires_at"])), Date.now() + 3_600_000, 60_000)
        const raw = yield* query((sql) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM password_reset_tokens WHERE token_hash = ${token}`
        )
        assert.strictEqual(raw[0]!.n, 0)

        const done = yield* confirm(tenant, { token, password: NEW_PASSWORD }).pipe(expectStatus(200))
        assert.deepStrictEqual(done, { data: { password_changed: true }, meta: {} })

        assert.strictEqual(yield* loginStatus(member, NEW_PASSWORD), 200)
        assert.strictEqual(yield* loginStatus(member, member.password), 401)
        // The session of before is gone: its access token and its refresh token.
        yield* me.users.me().pipe(expectError(401, "AUTH_REQUIRED"))
        const refresh = yield* clientFor(tenantHeaders(tenant))
        yield* refresh.auth.refresh({ payload: { refresh_token: session.refresh_token } }).pipe(
          expectError(401, "AUTH_TOKEN_EXPIRED")
        )

        // Single use; the D1 envelope of a refused token on the wire.
        const again = yield* post(CONFIRM, tenantHeaders(tenant), { token, password: "yet another secret" })
        assertEnvelope(again, 422, "RESET_TOKEN_USED")
        assert.deepStrictEqual(fieldsOf(again.body), ["token"])
        assert.strictEqual(yield* loginStatus(member, NEW_PASSWORD), 200)
        assert.isTrue((yield* tokensOf(member.id))[0]!.used)
        assert.deepStrictEqual(yield* eventsOf(tenant, "UserPasswordReset"), [{ user_id: member.id }])
      }))

    it.effect("the typed client: 202 accepted, then password_changed; a newer link retires the older one", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const client = yield* apiClient({ ...tenantHeaders(tenant), ...fromIp(randomIp()) })
        const accepted = yield* client.auth.requestPasswordReset({ payload: { email: member.email } })
        assert.deepStrictEqual(accepted, { data: { accepted: true }, meta: {} })
        const first = yield* tokenFor(member)
        yield* client.auth.requestPasswordReset({ payload: { email: member.email } })
        const [, second] = yield* awaitMails(member.email, 2)
        const newest = String(second!.data["token"])
        assert.notStrictEqual(newest, first)

        const retired = yield* client.auth.confirmPasswordReset({ payload: { token: first, password: NEW_PASSWORD } })
          .pipe(Effect.flip)
        assert.strictEqual(retired._tag, "PasswordResetTokenUsed")
        const done = yield* client.auth.confirmPasswordReset({ payload: { token: newest, password: NEW_PASSWORD } })
        assert.deepStrictEqual(done, { data: { password_changed: true }, meta: {} })
        assert.strictEqual(yield* loginStatus(member, NEW_PASSWORD), 200)
      }))

    it.effect("a member locked out by failed logins can sign in with the new password at once", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        for (let i = 0; i < 10; i++) assert.strictEqual(yield* loginStatus(member, "wrong password"), 401)
        assert.strictEqual(yield* loginStatus(member, member.password), 429)
        yield* requestReset(tenant, member.email)
        yield* confirm(tenant, { token: yield* tokenFor(member), password: NEW_PASSWORD }).pipe(expectStatus(200))
        assert.strictEqual(yield* loginStatus(member, NEW_PASSWORD), 200)
      }))

    it.effect("links an admin sends (24 h) and welcome set-password links are confirmed on the same route", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const admin = yield* actor(yield* makeAdmin(tenant))
        const client = yield* clientFor(admin.headers)
        yield* client.adminUsers.sendPasswordReset({ path: { id: UserId.make(member.id) }, withResponse: true }).pipe(
          expectStatus(200)
        )
        const [stored] = yield* tokensOf(member.id)
        assert.closeTo(stored!.seconds_left, 86_400, 60)
        yield* confirm(tenant, { token: yield* tokenFor(member), password: NEW_PASSWORD }).pipe(expectStatus(200))
        assert.strictEqual(yield* loginStatus(member, NEW_PASSWORD), 200)

        // An account an admin created without a password sets its first one with the welcome mail's link.
        const email = `welcome-${Date.now()}@example.org`
        const created = yield* client.adminUsers.create({
          payload: { email, first_name: "New", last_name: "Member" },
          withResponse: true
        }).pipe(expectStatus(201))
        const id = created.data.id
        yield* client.adminUsers.sendWelcomeEmail({ path: { id } })
        const [welcome] = yield* awaitMails(email)
        const setPassword = welcome!.data["set_password"] as { token: string }
        yield* confirm(tenant, { token: setPassword.token, password: NEW_PASSWORD }).pipe(expectStatus(200))
        const newcomer: TestUser = { id, email, password: NEW_PASSWORD, tenant }
        assert.strictEqual(yield* loginStatus(newcomer, NEW_PASSWORD), 200)
      }))
  })

  describe("no account enumeration", () => {
    it.effect("unknown e-mails, accounts that cannot sign in and other communities' members: same answer, no mail", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const pending = yield* makeUser(tenant, { status: "pending", isApproved: false })
        const suspended = yield* makeUser(tenant, { status: "suspended" })
        const elsewhere = yield* makeUser(yield* makeTenant())
        const nobody = `nobody-${Date.now()}@example.org`
        // The same bytes for every answer: raw.
        const answers = []
        for (const email of [nobody, pending.email, suspended.email, elsewhere.email]) {
          const res = yield* post(REQUEST, tenantHeaders(tenant), { email })
          assert.strictEqual(res.status, 202, res.text)
          answers.push({ body: res.body, type: res.headers["content-type"] })
        }
        // The member's own request comes last: the mailer handles requests in order, so once its mail is there,
        // every earlier request has been handled.
        const known = yield* post(REQUEST, tenantHeaders(tenant), { email: member.email })
        assert.strictEqual(known.status, 202)
        yield* awaitMails(member.email)
        for (const answer of answers) {
          assert.deepStrictEqual(answer, { body: ACCEPTED, type: known.headers["content-type"] })
        }
        assert.strictEqual(known.text, JSON.stringify(ACCEPTED))
        for (const email of [nobody, pending.email, suspended.email, elsewhere.email]) {
          assert.deepStrictEqual(yield* mailsTo(email), [], email)
        }
        for (const user of [pending, suspended, elsewhere]) assert.deepStrictEqual(yield* tokensOf(user.id), [])
      }))
  })

  describe("refused tokens", () => {
    it.effect("an expired token → 422 RESET_TOKEN_EXPIRED; the password stays", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        yield* requestReset(tenant, member.email)
        const token = yield* tokenFor(member)
        yield* query((sql) =>
          sql`UPDATE password_reset_tokens SET expires_at = now() - interval '1 second'
              WHERE token_hash = ${hashToken(token)}`
        )
        const before = yield* passwordHashOf(member.id)
        const res = yield* confirm(tenant, { token, password: NEW_PASSWORD }).pipe(
          expectError(422, "RESET_TOKEN_EXPIRED")
        )
        assert.deepStrictEqual(res.fields, ["token"])
        assert.strictEqual(yield* passwordHashOf(member.id), before)
        assert.strictEqual(yield* loginStatus(member, member.password), 200)
      }))

    it.effect("a token of another community → 422 RESET_TOKEN_INVALID there, and it still works at home", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const other = yield* makeTenant()
        // Asking in the wrong community mails nothing.
        yield* requestReset(other, member.email)
        yield* requestReset(tenant, member.email)
        const token = yield* tokenFor(member)
        assert.lengthOf(yield* mailsTo(member.email), 1)

        const confirmBySlug = (slug: string) =>
          Effect.flatMap(
            clientFor({ "x-tenant-slug": slug }),
            (client) =>
              client.auth.confirmPasswordReset({ payload: { token, password: NEW_PASSWORD }, withResponse: true })
          )
        const bySlug = yield* confirmBySlug(other.slug).pipe(expectError(422, "RESET_TOKEN_INVALID"))
        assert.deepStrictEqual(bySlug.fields, ["token"])
        assert.isFalse((yield* tokensOf(member.id))[0]!.used)
        assert.strictEqual(yield* loginStatus(member, member.password), 200)

        yield* confirmBySlug(tenant.slug).pipe(expectStatus(200))
      }))

    it.effect("an unknown token → 422 RESET_TOKEN_INVALID", () =>
      Effect.gen(function*() {
        const { tenant } = yield* community(TOKENS_ONLY)
        for (const token of ["not-a-token", "x".repeat(43), "a.b.c"]) {
          const res = yield* confirm(tenant, { token, password: NEW_PASSWORD }).pipe(
            expectError(422, "RESET_TOKEN_INVALID")
          )
          assert.deepStrictEqual(res.fields, ["token"])
        }
      }))

    it.effect("two confirmations racing with one token: one changes the password, the other is RESET_TOKEN_USED", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        yield* requestReset(tenant, member.email)
        const token = yield* tokenFor(member)
        const results = yield* Effect.all(
          ["first racer secret", "second racer secret"].map((password) =>
            outcomeOf(confirm(tenant, { token, password }))
          ),
          { concurrency: 2 }
        )
        assert.sameMembers(results.map((r) => r.status), [200, 422])
        const loser = results.find((r) => r.status === 422)!
        assert.strictEqual(loser.failure?.code, "RESET_TOKEN_USED")
        const winner = ["first racer secret", "second racer secret"][results.findIndex((r) => r.status === 200)]!
        assert.strictEqual(yield* loginStatus(member, winner), 200)
      }))
  })

  describe("bad input", () => {
    it.effect("422 VALIDATION_ERROR per field (missing fields, not an e-mail, short password); nothing changes", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        // Bodies the contract refuses to send, and the D1 envelope on the wire: raw.
        for (
          const [body, fields] of [
            [{}, ["email"]],
            [{ email: "" }, ["email"]],
            [{ email: "not an e-mail" }, ["email"]],
            [{ email: 42 }, ["email"]],
            [{ email: null }, ["email"]]
          ] as const
        ) {
          const res = yield* post(REQUEST, tenantHeaders(tenant), body)
          assertEnvelope(res, 422, "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        yield* requestReset(tenant, member.email)
        const token = yield* tokenFor(member)
        for (
          const [body, fields] of [
            [{}, ["token", "password"]],
            [{ token }, ["password"]],
            [{ password: NEW_PASSWORD }, ["token"]],
            [{ token, password: "short" }, ["password"]],
            [{ token, password: 12345678 }, ["password"]],
            [{ token: "", password: NEW_PASSWORD }, ["token"]],
            [{ token: "t".repeat(257), password: NEW_PASSWORD }, ["token"]],
            [{ token: 5, password: "short" }, ["token", "password"]]
          ] as const
        ) {
          const res = yield* post(CONFIRM, tenantHeaders(tenant), body)
          assertEnvelope(res, 422, "VALIDATION_ERROR")
          assert.sameMembers(fieldsOf(res.body), [...fields], JSON.stringify(body))
        }
        const notJson = yield* post(CONFIRM, tenantHeaders(tenant), "{not json")
        assertEnvelope(notJson, 400, "INVALID_JSON")
        // None of that used the token up.
        assert.isFalse((yield* tokensOf(member.id))[0]!.used)
        assert.strictEqual(yield* loginStatus(member, member.password), 200)
      }))

    it.effect("no tenant → 400 tenant_required; an unknown one → 400 tenant_resolution_failed", () =>
      Effect.gen(function*() {
        for (const headers of [{}, { "x-tenant-slug": "no-such-community" }]) {
          const code = "x-tenant-slug" in headers ? "tenant_resolution_failed" : "tenant_required"
          const client = yield* clientFor(headers)
          yield* client.auth.requestPasswordReset({ payload: { email: "a@example.org" } }).pipe(expectError(400, code))
          yield* client.auth.confirmPasswordReset({ payload: { token: "x", password: NEW_PASSWORD } }).pipe(
            expectError(400, code)
          )
        }
      }))
  })

  describe("rate limit", () => {
    it.effect("asking for links: 5 per minute per IP, the 6th → 429 RATE_LIMITED with Retry-After; confirm is not limited", () =>
      Effect.gen(function*() {
        const { member, tenant } = yield* community(TOKENS_ONLY)
        const ip = fromIp(randomIp())
        for (let i = 0; i < 5; i++) {
          const [, res] = yield* requestReset(tenant, `someone-${i}@example.org`, ip)
          assert.strictEqual(res.status, 202)
          assert.strictEqual(res.headers["x-ratelimit-limit"], "5")
          assert.strictEqual(res.headers["x-ratelimit-remaining"], String(4 - i))
        }
        // The refusal's headers and envelope: raw.
        const limited = yield* post(REQUEST, { ...tenantHeaders(tenant), ...ip }, { email: member.email })
        assertEnvelope(limited, 429, "RATE_LIMITED")
        assert.isString(limited.headers["retry-after"])
        // Another address is not affected.
        yield* requestReset(tenant, member.email).pipe(expectStatus(202))
        const token = yield* tokenFor(member)
        const client = yield* apiClient({ ...tenantHeaders(tenant), ...ip })
        const [done, response] = yield* client.auth.confirmPasswordReset({
          payload: { token, password: NEW_PASSWORD },
          withResponse: true
        })
        assert.strictEqual(response.status, 200)
        assert.isUndefined(response.headers["x-ratelimit-limit"])
        assert.deepStrictEqual(errorsOf(limited.body).map((e) => e.code), ["RATE_LIMITED"])
        assert.strictEqual(done.data.password_changed, true)
      }))
  })

  it.effect("OpenAPI documents both routes with summaries, the 202 and the token errors", () =>
    Effect.gen(function*() {
      // The document, not the API: raw.
      const res = yield* rawRequest("GET", "/api/v2/openapi.json")
      type Operation = { summary?: string; responses: Record<string, { $ref?: string }> }
      const doc = res.body as {
        paths: Record<string, { post?: Operation }>
        components: { responses?: Record<string, unknown> }
      }
      const paths = doc.paths
      /** A response, through its `$ref` when it is a shared one. */
      const resolved = (response: { $ref?: string } | undefined) =>
        response?.$ref === undefined ? response : doc.components.responses?.[response.$ref.split("/").at(-1)!]
      const request = paths[REQUEST]!.post!
      const confirmOp = paths[CONFIRM]!.post!
      assert.isString(request.summary)
      assert.isString(confirmOp.summary)
      assert.includeMembers(Object.keys(request.responses), ["202", "422", "429"])
      assert.includeMembers(Object.keys(confirmOp.responses), ["200", "422"])
      const tokenErrors = JSON.stringify(resolved(confirmOp.responses["422"]))
      for (const code of ["VALIDATION_ERROR", "RESET_TOKEN_INVALID", "RESET_TOKEN_USED", "RESET_TOKEN_EXPIRED"]) {
        assert.include(tokenErrors, code)
      }
      assert.include(JSON.stringify(resolved(request.responses["429"])), "RATE_LIMITED")
    }))
})
