import { SqlClient } from "@effect/sql"
import { assert, describe, it, layer } from "@effect/vitest"
import { RateLimit } from "@timebank/domain"
import { rateLimitHeaders, redisOptionsFromUrl, retryAfterSeconds } from "@timebank/server"
import { Context, Duration, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { type Answer, answerOf, apiClient } from "./fixtures/client.js"
import { fromIp, randomIp, twoServers } from "./fixtures/servers.js"
import { makeTenant, tenantHeaders } from "./fixtures/tenants.js"
import { TestApp } from "./fixtures/TestApp.js"
import { makeUser, type TestUser } from "./fixtures/users.js"

/** Status, headers and outcome of a call, refusals included (their headers are what this file is about). */
type Response = Answer<unknown, unknown>

const codesOf = (res: Response) => res.failure?.errors.map((e) => e.code)

/** The typed client addressing `tenant` with extra `headers` (X-Forwarded-For). */
const clientIn = (tenant: { id: number }, headers: Record<string, string> = {}) =>
  apiClient({ ...tenantHeaders(tenant), ...headers })

const uniqueEmail = (label: string) => `${label}-${randomBytes(5).toString("hex")}@example.org`

const registration = (email: string) => ({ email, password: "long enough", first_name: "Rae", last_name: "Lim" })

const register = (tenant: { id: number }, email: string, headers: Record<string, string> = {}) =>
  Effect.flatMap(
    clientIn(tenant, headers),
    (client) => answerOf(client.auth.register({ payload: registration(email) }))
  )

/** Login and its legacy path, which share one budget. */
const LOGIN_PATHS = ["login", "loginLegacyPath"] as const

const logInAs = (
  tenant: { id: number },
  payload: { readonly email: string; readonly password: string },
  headers: Record<string, string> = {},
  path: typeof LOGIN_PATHS[number] = LOGIN_PATHS[0]
) => Effect.flatMap(clientIn(tenant, headers), (client) => answerOf(client.auth[path]({ payload })))

const logIn = (
  user: TestUser,
  password: string,
  headers: Record<string, string> = {},
  path: typeof LOGIN_PATHS[number] = LOGIN_PATHS[0]
) => logInAs(user.tenant, { email: user.email, password }, headers, path)

const openTenant = () => makeTenant({ settings: { registration_requires_approval: false } })

const nowSeconds = () => Math.floor(Date.now() / 1000)

/** A counted request: 30 per minute, `remaining` left, reset within the minute (unix seconds). */
const assertCounted = (res: Response, remaining: number) => {
  assert.strictEqual(res.headers["x-ratelimit-limit"], "30")
  assert.strictEqual(res.headers["x-ratelimit-remaining"], String(remaining))
  const reset = Number(res.headers["x-ratelimit-reset"])
  assert.isTrue(Number.isInteger(reset), `reset ${res.headers["x-ratelimit-reset"]}`)
  assert.isAtLeast(reset, nowSeconds())
  assert.isAtMost(reset, nowSeconds() + 61)
}

/** Past the route limit: 429 RATE_LIMITED, Retry-After in whole seconds within the window, nothing remaining. */
const assertRouteLimited = (res: Response) => {
  assert.strictEqual(res.status, 429)
  assert.deepStrictEqual(codesOf(res), ["RATE_LIMITED"])
  const retryAfter = Number(res.headers["retry-after"])
  assert.isTrue(Number.isInteger(retryAfter), `retry-after ${res.headers["retry-after"]}`)
  assert.isAtLeast(retryAfter, 1)
  assert.isAtMost(retryAfter, 60)
  assert.strictEqual(res.headers["x-ratelimit-limit"], "30")
  assert.strictEqual(res.headers["x-ratelimit-remaining"], "0")
  const reset = Number(res.headers["x-ratelimit-reset"])
  assert.isAtLeast(reset, nowSeconds() + retryAfter - 1)
  assert.isAtMost(reset, nowSeconds() + retryAfter + 1)
}

/** Locked by the login throttle (decisions D4): 429 with Retry-After up to 5 minutes after the last failure. */
const assertLoginLocked = (res: Response) => {
  assert.strictEqual(res.status, 429)
  assert.deepStrictEqual(codesOf(res), ["RATE_LIMITED"])
  const retryAfter = Number(res.headers["retry-after"])
  assert.isTrue(Number.isInteger(retryAfter), `retry-after ${res.headers["retry-after"]}`)
  assert.isAtLeast(retryAfter, 1)
  assert.isAtMost(retryAfter, 300)
}

const assertNotCounted = (res: Response) => {
  for (const name of ["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset"]) {
    assert.isUndefined(res.headers[name], name)
  }
}

const assertInvalidCredentials = (res: Response) => {
  assert.strictEqual(res.status, 401)
  assert.deepStrictEqual(codesOf(res), ["AUTH_INVALID_CREDENTIALS"])
}

/** A success: `status`, no domain error. */
const assertOk = (res: Response, status: number) => {
  assert.strictEqual(res.status, status, res.failure?.message)
  assert.isUndefined(res.failure)
}

const sessionsOf = (user: { readonly id: number }) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM auth_sessions WHERE user_id = ${user.id}`.pipe(
        Effect.map((rows) => rows[0]!.n),
        Effect.orDie
      )
  )

const usersWithEmails = (emails: ReadonlyArray<string>) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ email: string }>`SELECT email FROM users WHERE email IN ${sql.in(emails)}`.pipe(
        Effect.map((rows) => rows.map((r) => r.email).sort()),
        Effect.orDie
      )
  )

const WRONG = "not the password"

describe("rate-limit helpers", () => {
  it("headers carry the limit, what remains (never negative) and the reset as unix seconds", () => {
    assert.deepStrictEqual(rateLimitHeaders(30, 4, 1_700_000_000_001), {
      "x-ratelimit-limit": "30",
      "x-ratelimit-remaining": "4",
      "x-ratelimit-reset": "1700000001"
    })
    assert.strictEqual(rateLimitHeaders(30, -2, 0)["x-ratelimit-remaining"], "0")
  })

  it("Retry-After is whole seconds, at least 1", () => {
    assert.strictEqual(retryAfterSeconds(Duration.millis(0)), 1)
    assert.strictEqual(retryAfterSeconds(Duration.millis(1)), 1)
    assert.strictEqual(retryAfterSeconds(Duration.millis(57_001)), 58)
  })

  it("a policy whose window is not a whole number of milliseconds per request is refused at declaration", () => {
    assert.throws(() => RateLimit()("Odd", { limit: 7, window: "1 minute", scope: "ip" }), /whole multiple/)
    assert.throws(() => RateLimit()("Zero", { limit: 0, window: "1 minute", scope: "ip" }), /positive integer/)
    assert.strictEqual(RateLimit()("Fine", { limit: 30, window: "1 minute", scope: "ip" }).key, "Fine")
  })

  it("REDIS_URL becomes connection options", () => {
    assert.deepStrictEqual(redisOptionsFromUrl("redis://127.0.0.1:6379"), { host: "127.0.0.1", port: 6379 })
    assert.deepStrictEqual(redisOptionsFromUrl("rediss://user:p%40ss@cache.internal/2"), {
      host: "cache.internal",
      port: 6379,
      username: "user",
      password: "p@ss",
      db: 2,
      tls: {}
    })
  })
})

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })("route rate limits by socket address", (it) => {
  it.effect("register: 30 per minute per IP; the 31st is 429 RATE_LIMITED and creates nothing", () =>
    Effect.gen(function*() {
      const tenant = yield* openTenant()
      const emails = Array.from({ length: 31 }, () => uniqueEmail("reg"))
      for (const [i, email] of emails.slice(0, 30).entries()) {
        const res = yield* register(tenant, email)
        assertOk(res, 201)
        assertCounted(res, 29 - i)
      }
      const refused = yield* register(tenant, emails[30]!)
      assertRouteLimited(refused)
      assert.deepStrictEqual(yield* usersWithEmails(emails), emails.slice(0, 30).sort())
      // Routes without a declared limit are neither counted nor refused.
      const csrf = yield* Effect.flatMap(clientIn(tenant), (client) => answerOf(client.auth.csrfToken()))
      assertOk(csrf, 200)
      assertNotCounted(csrf)
      assertRouteLimited(yield* register(tenant, uniqueEmail("reg")))
    }))

  it.effect("login (both paths share one budget): the 31st is 429 before any password check; refresh is not limited", () =>
    Effect.gen(function*() {
      const tenant = yield* makeTenant()
      const user = yield* makeUser(tenant)
      // The tenant is resolved before the limit is counted: a request naming no tenant is refused uncounted.
      const nobody = yield* apiClient({})
      const noTenant = yield* answerOf(nobody.auth.login({ payload: { email: user.email, password: user.password } }))
      assert.strictEqual(noTenant.status, 400)
      assert.deepStrictEqual(codesOf(noTenant), ["tenant_required"])
      assertNotCounted(noTenant)
      let refreshToken = ""
      for (let i = 0; i < 30; i++) {
        const res = yield* logIn(user, user.password, {}, LOGIN_PATHS[i % 2])
        assertOk(res, 200)
        assertCounted(res, 29 - i)
        refreshToken = res.value!.refresh_token
      }
      for (const path of LOGIN_PATHS) assertRouteLimited(yield* logIn(user, user.password, {}, path))
      assert.strictEqual(yield* sessionsOf(user), 30)
      const client = yield* clientIn(tenant)
      const refreshed = yield* answerOf(client.auth.refresh({ payload: { refresh_token: refreshToken } }))
      assertOk(refreshed, 200)
      assertNotCounted(refreshed)
    }))
})

layer(TestApp({ TRUST_PROXY: "true" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "route rate limits and the login throttle behind a proxy",
  (it) => {
    it.effect("each X-Forwarded-For client has its own budget", () =>
      Effect.gen(function*() {
        const tenant = yield* openTenant()
        const [first, second] = [randomIp(), randomIp()]
        for (let i = 0; i < 30; i++) {
          const res = yield* register(tenant, uniqueEmail("proxy"), fromIp(first))
          assertOk(res, 201)
          assertCounted(res, 29 - i)
        }
        const refused = uniqueEmail("refused")
        assertRouteLimited(yield* register(tenant, refused, fromIp(first)))
        const other = uniqueEmail("other")
        const allowed = yield* register(tenant, other, fromIp(second))
        assertOk(allowed, 201)
        assertCounted(allowed, 29)
        // The first entry of the chain is the client; the proxies after it are not.
        const chained = yield* register(tenant, uniqueEmail("chain"), { "x-forwarded-for": `${second}, ${first}` })
        assertOk(chained, 201)
        assertCounted(chained, 28)
        assert.deepStrictEqual(yield* usersWithEmails([refused, other]), [other])
        // Login has its own budget: the first client may still log in.
        const user = yield* makeUser(tenant)
        const login = yield* logIn(user, user.password, fromIp(first))
        assertOk(login, 200)
        assertCounted(login, 29)
        assertRouteLimited(yield* register(tenant, uniqueEmail("still"), fromIp(first)))
      }))

    it.effect("10 failures for one e-mail lock it, even with the right password; others are unaffected", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const user = yield* makeUser(tenant)
        const bystander = yield* makeUser(tenant)
        // Every attempt from another address, so that only the e-mail's count can lock.
        for (let i = 0; i < 10; i++) assertInvalidCredentials(yield* logIn(user, WRONG, fromIp(randomIp())))
        const locked = yield* logIn(user, user.password, fromIp(randomIp()))
        assertLoginLocked(locked)
        assert.isAtLeast(Number(locked.headers["retry-after"]), 290)
        assertCounted(locked, 29)
        // E-mails compare case-insensitively, and the legacy path is locked too.
        assertLoginLocked(
          yield* logInAs(
            tenant,
            { email: user.email.toUpperCase(), password: user.password },
            fromIp(randomIp()),
            LOGIN_PATHS[1]
          )
        )
        assert.strictEqual(yield* sessionsOf(user), 0)
        const other = yield* logIn(bystander, bystander.password, fromIp(randomIp()))
        assertOk(other, 200)
        assert.strictEqual(yield* sessionsOf(bystander), 1)
      }))

    it.effect("a success before the tenth failure clears that e-mail's failures", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const user = yield* makeUser(tenant)
        for (let i = 0; i < 9; i++) assertInvalidCredentials(yield* logIn(user, WRONG, fromIp(randomIp())))
        const success = yield* logIn(user, user.password, fromIp(randomIp()))
        assertOk(success, 200)
        // Had the count survived, the first of these would already be refused.
        for (let i = 0; i < 9; i++) assertInvalidCredentials(yield* logIn(user, WRONG, fromIp(randomIp())))
        const again = yield* logIn(user, user.password, fromIp(randomIp()))
        assertOk(again, 200)
        assert.strictEqual(yield* sessionsOf(user), 2)
      }))

    it.effect("10 failures from one IP across e-mails lock that IP, not the e-mails", () =>
      Effect.gen(function*() {
        const tenant = yield* makeTenant()
        const user = yield* makeUser(tenant)
        const attacker = randomIp()
        for (let i = 0; i < 10; i++) {
          const res = yield* logInAs(tenant, { email: uniqueEmail("guess"), password: WRONG }, fromIp(attacker))
          assertInvalidCredentials(res)
          assertCounted(res, 29 - i)
        }
        const locked = yield* logIn(user, user.password, fromIp(attacker))
        assertLoginLocked(locked)
        assert.isAtLeast(Number(locked.headers["retry-after"]), 290)
        assertCounted(locked, 19)
        assert.strictEqual(yield* sessionsOf(user), 0)
        const elsewhere = yield* logIn(user, user.password, fromIp(randomIp()))
        assertOk(elsewhere, 200)
        assert.strictEqual(yield* sessionsOf(user), 1)
        assertLoginLocked(yield* logIn(user, user.password, fromIp(attacker)))
      }))
  }
)

// Nothing listens on port 1: every store command fails, as when Redis is down.
layer(TestApp({ REDIS_URL: "redis://127.0.0.1:1" }), { excludeTestServices: true, timeout: "120 seconds" })(
  "when Redis is down",
  (it) => {
    it.effect("limited routes fail open: answered as usual, without rate-limit headers", () =>
      Effect.gen(function*() {
        const tenant = yield* openTenant()
        const email = uniqueEmail("open")
        const registered = yield* register(tenant, email)
        assertOk(registered, 201)
        assertNotCounted(registered)
        const user = yield* makeUser(tenant)
        const wrong = yield* logIn(user, WRONG)
        assertInvalidCredentials(wrong)
        assertNotCounted(wrong)
        const ok = yield* logIn(user, user.password)
        assertOk(ok, 200)
        assertNotCounted(ok)
        assert.deepStrictEqual(yield* usersWithEmails([email]), [email])
        assert.strictEqual(yield* sessionsOf(user), 1)
      }))
  }
)

describe("two servers sharing Redis and the database", () => {
  const redisUrl = process.env["REDIS_URL"] || "redis://127.0.0.1:6379"

  it.scopedLive("count route limits and login failures together", () =>
    Effect.gen(function*() {
      const { a, b, onA, onB } = yield* twoServers({ TRUST_PROXY: "true", REDIS_URL: redisUrl })
      // Two HTTP servers, not one reached twice.
      assert.notStrictEqual(Context.get(a, SqlClient.SqlClient), Context.get(b, SqlClient.SqlClient))

      const tenant = yield* onA(openTenant())
      const client = randomIp()
      for (let i = 0; i < 30; i++) {
        const res = yield* (i % 2 === 0 ? onA : onB)(register(tenant, uniqueEmail("two"), fromIp(client)))
        assertOk(res, 201)
        assertCounted(res, 29 - i)
      }
      assertRouteLimited(yield* onA(register(tenant, uniqueEmail("two"), fromIp(client))))
      assertRouteLimited(yield* onB(register(tenant, uniqueEmail("two"), fromIp(client))))

      const user = yield* onA(makeUser(tenant))
      const bystander = yield* onA(makeUser(tenant))
      for (let i = 0; i < 10; i++) assertInvalidCredentials(yield* onA(logIn(user, WRONG, fromIp(randomIp()))))
      assertLoginLocked(yield* onB(logIn(user, user.password, fromIp(randomIp()))))
      assertLoginLocked(yield* onA(logIn(user, user.password, fromIp(randomIp()))))
      assert.strictEqual(yield* onB(sessionsOf(user)), 0)
      const other = yield* onB(logIn(bystander, bystander.password, fromIp(randomIp())))
      assertOk(other, 200)
      assert.strictEqual(yield* onA(sessionsOf(bystander)), 1)
    }), 120_000)
})
