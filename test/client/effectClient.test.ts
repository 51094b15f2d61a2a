import { FetchHttpClient, HttpClient } from "@effect/platform"
import { assert, layer } from "@effect/vitest"
import { type EffectClientOptions, TimebankClient } from "@timebank/client"
import { ListingId, NotFound, RecordId } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { asJson, expectError, expectStatus, serverUrl } from "../fixtures/client.js"
import { community } from "../fixtures/community.js"
import { balanceOf, countTransactions, verifyLedger } from "../fixtures/ledger.js"
import { makeListing } from "../fixtures/listings.js"
import { fromIp, randomIp } from "../fixtures/servers.js"
import { makeTenant } from "../fixtures/tenants.js"
import { TestApp } from "../fixtures/TestApp.js"
import { makeUser, type TestUser } from "../fixtures/users.js"

/**
 * The package's Effect client as a program outside the process uses it: a base URL, the tenant's slug and a token,
 * over Node's fetch (`FetchHttpClient`), not the test HttpClient of the fixtures. Each client sends from an address
 * of its own (logins are limited per IP).
 */
const clientOf = (options: Omit<EffectClientOptions, "baseUrl">) =>
  Effect.flatMap(
    serverUrl,
    (baseUrl) =>
      TimebankClient.make({ ...options, baseUrl, headers: { ...fromIp(randomIp()), ...options.headers } }).pipe(
        Effect.provide(FetchHttpClient.layer)
      )
  )

/** Logs `user` in through the package's client (by the tenant's slug) and answers a client with its token. */
const signedIn = (user: TestUser, options: Omit<EffectClientOptions, "baseUrl" | "tenant" | "token"> = {}) =>
  Effect.gen(function*() {
    const visitor = yield* clientOf({ tenant: user.tenant.slug })
    const tokens = yield* visitor.auth.login({
      payload: { email: user.email, password: user.password },
      withResponse: true
    }).pipe(expectStatus(200))
    assert.strictEqual(tokens.token_type, "Bearer")
    return yield* clientOf({ ...options, tenant: user.tenant.slug, token: tokens.access_token })
  })

const funded = community({ settings: { starting_balance: 0 }, fund: { member: 10 } })

layer(TestApp(), { excludeTestServices: true, timeout: "120 seconds" })(
  "the Effect client of @timebank/client",
  (it) => {
    it.effect("logs in by tenant slug and lists this community's listings as typed values", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const mine = yield* makeListing(c.member, { title: "Bread baking" })
        const theirs = yield* makeListing(c.other, { title: "Bike repair", type: "request" })
        const stranger = yield* makeUser(yield* makeTenant())
        yield* makeListing(stranger, { title: "Elsewhere" })

        const client = yield* signedIn(c.member)
        const page = yield* client.listings.list({ urlParams: {}, withResponse: true }).pipe(expectStatus(200))
        assert.deepStrictEqual(
          page.data.map((l) => [l.id, l.title, l.type, l.user.id]),
          [[theirs.id, "Bike repair", "request", c.other.id], [mine.id, "Bread baking", "offer", c.member.id]]
        )
        assert.deepStrictEqual(asJson(page.meta), { per_page: 20, has_more: false })

        const requests = yield* client.listings.list({ urlParams: { type: "request" } })
        assert.deepStrictEqual(requests.data.map((l) => l.id), [theirs.id])
      }))

    it.effect("another community's listing is a typed NotFound: 404 with the envelope's NOT_FOUND", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const foreign = yield* makeListing(yield* makeUser(yield* makeTenant()))
        const statuses: Array<number> = []
        const client = yield* signedIn(c.member, {
          transformClient: HttpClient.tap((response) => Effect.sync(() => statuses.push(response.status)))
        })

        const path = { path: { id: ListingId.make(foreign.id) } }
        const error = yield* Effect.flip(client.listings.get(path))
        assert.instanceOf(error, NotFound)
        assert.strictEqual(error.message, "Listing not found")
        assert.deepStrictEqual(statuses, [404])
        // The same as the suite's assertion reads it: status and code of the class the client decoded.
        const failure = yield* client.listings.get(path).pipe(expectError(404, "NOT_FOUND"))
        assert.deepStrictEqual(failure.errors, [{ code: "NOT_FOUND", message: "Listing not found" }])
        // A typed handler: only declared errors can be caught by their tag.
        const recovered = yield* client.listings.get(path).pipe(
          Effect.map((res) => res.data.title),
          Effect.catchTag("NotFound", (e) => Effect.succeed(`missing: ${e.message}`))
        )
        assert.strictEqual(recovered, "missing: Listing not found")
      }))

    it.effect("a transfer with an Idempotency-Key moves credits once; its replay answers the same transaction", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const client = yield* signedIn(c.member)
        const before = yield* countTransactions(c.tenant.id)
        const request = {
          headers: { "idempotency-key": randomUUID() },
          payload: { recipient_id: RecordId.make(c.other.id), amount: 2.5, description: "Gardening" },
          withResponse: true
        } as const

        const paid = yield* client.wallet.transfer(request).pipe(expectStatus(201))
        assert.deepInclude(asJson(paid.data), {
          amount: 2.5,
          sender_id: c.member.id,
          recipient_id: c.other.id,
          description: "Gardening",
          type: "transfer",
          direction: "out"
        })
        const replay = yield* client.wallet.transfer(request).pipe(expectStatus(201))
        assert.deepStrictEqual(asJson(replay), asJson(paid))

        const wallet = yield* client.wallet.get()
        assert.strictEqual(wallet.data.balance, 7.5)
        assert.strictEqual(yield* balanceOf(c.otherHeaders), 2.5)
        assert.strictEqual(yield* countTransactions(c.tenant.id), before + 1)
        assert.isTrue((yield* verifyLedger(c.tenant.id)).ok)

        // More than the balance: the declared 422, decoded as its class, and nothing written.
        yield* client.wallet.transfer({
          ...request,
          headers: { "idempotency-key": randomUUID() },
          payload: {
            ...request.payload,
            amount: 100
          }
        }).pipe(expectError(422, "INSUFFICIENT_BALANCE"))
        assert.strictEqual(yield* countTransactions(c.tenant.id), before + 1)
      }))

    it.effect("TimebankClient.layer serves the client from the context, with the tenant by id and the token", () =>
      Effect.gen(function*() {
        const c = yield* funded
        const baseUrl = yield* serverUrl
        const visitor = yield* clientOf({ tenant: c.tenant.id })
        const tokens = yield* visitor.auth.login({ payload: { email: c.member.email, password: c.member.password } })
        const balance = yield* Effect.flatMap(TimebankClient, (client) => client.wallet.get()).pipe(
          Effect.provide(TimebankClient.layer({
            baseUrl,
            tenant: c.tenant.id,
            token: tokens.access_token,
            headers: fromIp(randomIp())
          })),
          Effect.provide(FetchHttpClient.layer)
        )
        assert.strictEqual(balance.data.balance, 10)
      }))
  }
)
