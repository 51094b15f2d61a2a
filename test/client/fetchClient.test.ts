import { assert, layer } from "@effect/vitest"
import { createTimebankClient, type FetchClientOptions } from "@timebank/client"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { serverUrl } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { balanceOf, countTransactions, verifyLedger } from "../fixtures/ledger.js"
import { makeListing } from "../fixtures/listings.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { makeTenant } from "../fixtures/tenants.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeUser, type TestUser } from "../fixtures/users.js"

/**
 * The package's fetch client (openapi-fetch typed by the generated OpenAPI types) as a program without Effect uses
 * it, over Node's fetch; `Effect.promise` only runs its promises inside the test. The `@ts-expect-error` lines are
 * type tests: `npm run typecheck` fails if the client ever accepts what they send.
 */
const clientOf = (options: Omit<FetchClientOptions, "baseUrl">) =>
  Effect.map(
    serverUrl,
    (baseUrl) => createTimebankClient({ ...options, baseUrl, headers: { ...fromIp(randomIp()), ...options.headers } })
  )

/** Logs `user` in with the fetch client (by the tenant's slug) and answers a client with its token. */
const signedIn = (user: TestUser) =>
  Effect.gen(function*() {
    const visitor = yield* clientOf({ tenant: user.tenant.slug })
    const login = yield* Effect.promise(() =>
      visitor.POST("/api/v2/auth/login", { body: { email: user.email, password: user.password } })
    )
    assert.strictEqual(login.response.status, 200)
    assert.strictEqual(login.data?.token_type, "Bearer")
    return yield* clientOf({ tenant: user.tenant.slug, token: login.data!.access_token })
  })

const funded = community({ settings: { starting_balance: 0 }, fund: { member: 10 } })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "the fetch client of @timebank/client",
  (it) => {
    it.effect("logs in by tenant slug and lists this community's listings", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const mine = yield* makeListing(c.member, { title: "Bread baking" })
        const theirs = yield* makeListing(c.other, { title: "Bike repair", type: "request" })
        yield* makeListing(yield* makeUser(yield* makeTenant()), { title: "Elsewhere" })
        const api = yield* signedIn(c.member)

        const page = yield* Effect.promise(() => api.GET("/api/v2/listings", { params: { query: {} } }))
        assert.strictEqual(page.response.status, 200)
        assert.deepStrictEqual(
          page.data?.data.map((l) => [l.id, l.title, l.type, l.user.id]),
          [[theirs.id, "Bike repair", "request", c.other.id], [mine.id, "Bread baking", "offer", c.member.id]]
        )
        assert.deepStrictEqual(page.data?.meta, { per_page: 20, has_more: false })

        const requests = yield* Effect.promise(() =>
          api.GET("/api/v2/listings", { params: { query: { type: "request", per_page: 5 } } })
        )
        assert.deepStrictEqual(requests.data?.data.map((l) => l.id), [theirs.id])
        assert.strictEqual(requests.data?.meta.per_page, 5)
      }))

    it.effect("another community's listing is 404 with the envelope's NOT_FOUND as `error`", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const foreign = yield* makeListing(yield* makeUser(yield* makeTenant()))
        const api = yield* signedIn(c.member)

        const res = yield* Effect.promise(() =>
          api.GET("/api/v2/listings/{id}", { params: { path: { id: foreign.id } } })
        )
        assert.strictEqual(res.response.status, 404)
        assert.isUndefined(res.data)
        assert.deepStrictEqual(res.error, { errors: [{ code: "NOT_FOUND", message: "Listing not found" }] })

        // Without a community the tenant middleware answers first: the 400 its response declares.
        const anonymous = yield* clientOf({})
        const noTenant = yield* Effect.promise(() =>
          anonymous.GET("/api/v2/listings/{id}", { params: { path: { id: foreign.id } } })
        )
        assert.strictEqual(noTenant.response.status, 400)
        assert.strictEqual(noTenant.error?.errors[0]?.code, "tenant_required")
      }))

    it.effect("a transfer with an Idempotency-Key moves credits once; its replay answers the same transaction", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const api = yield* signedIn(c.member)
        const before = yield* countTransactions(c.tenant.id)
        const key = randomUUID()
        const send = (amount: number, idempotencyKey = key) =>
          Effect.promise(() =>
            api.POST("/api/v2/wallet/transfers", {
              params: { header: { "idempotency-key": idempotencyKey } },
              body: { recipient_id: c.other.id, amount, description: "Gardening" }
            })
          )

        const paid = yield* send(2.5)
        assert.strictEqual(paid.response.status, 201)
        assert.deepInclude(paid.data?.data, {
          amount: 2.5,
          sender_id: c.member.id,
          recipient_id: c.other.id,
          description: "Gardening",
          type: "transfer",
          direction: "out"
        })
        const replay = yield* send(2.5)
        assert.strictEqual(replay.response.status, 201)
        assert.deepStrictEqual(replay.data, paid.data)
        const conflict = yield* send(3)
        assert.strictEqual(conflict.response.status, 409)
        assert.strictEqual(conflict.error?.errors[0]?.code, "IDEMPOTENCY_CONFLICT")

        const wallet = yield* Effect.promise(() => api.GET("/api/v2/wallet"))
        assert.strictEqual(wallet.data?.data.balance, 7.5)
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 2.5)
        assert.strictEqual(yield* countTransactions(c.tenant.id), before + 1)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)
      }))

    it.effect("what the types refuse, the server refuses too: a wrong body, a wrong path", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const api = yield* signedIn(c.member)
        const before = yield* countTransactions(c.tenant.id)

        const wrongBody = yield* Effect.promise(() =>
          api.POST("/api/v2/wallet/transfers", {
            params: { header: { "idempotency-key": randomUUID() } },
            // @ts-expect-error -- the amount is a number of hours, not a string
            body: { recipient_id: c.other.id, amount: "2.5", description: "Gardening" }
          })
        )
        assert.strictEqual(wrongBody.response.status, 422)
        assert.deepInclude(wrongBody.error?.errors[0], { code: "VALIDATION_ERROR", field: "amount" })

        const missingField = yield* Effect.promise(() =>
          // @ts-expect-error -- `recipient_id` is required
          api.POST("/api/v2/wallet/transfers", { body: { amount: 1, description: "Gardening" } })
        )
        assert.strictEqual(missingField.response.status, 422)
        assert.deepInclude(missingField.error?.errors[0], { code: "VALIDATION_ERROR", field: "recipient_id" })

        // @ts-expect-error -- no such path in the contract (it is /api/v2/wallet/transfers)
        const wrongPath = yield* Effect.promise(() => api.GET("/api/v2/wallet/transfer"))
        assert.strictEqual(wrongPath.response.status, 404)
        assert.strictEqual(yield* countTransactions(c.tenant.id), before)
      }))
  }
)
