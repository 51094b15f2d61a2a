// The Effect example of README.md, typechecked with the repository (`npm run typecheck`).
import { FetchHttpClient } from "@effect/platform"
import { TimebankClient } from "@timebank/client"
import { ListingId, RecordId } from "@timebank/domain"
import { Console, Effect } from "effect"

const baseUrl = "http://localhost:8080"

export const program = Effect.gen(function*() {
  const visitor = yield* TimebankClient.make({ baseUrl, tenant: "acme" })
  const tokens = yield* visitor.auth.login({ payload: { email: "ada@example.org", password: "correct horse battery" } })

  const ada = yield* TimebankClient.make({ baseUrl, tenant: "acme", token: tokens.access_token })
  const offers = yield* ada.listings.list({ urlParams: { type: "offer" } })
  yield* Console.log(offers.data.map((listing) => listing.title))

  const listing = yield* ada.listings.get({ path: { id: ListingId.make(7) } }).pipe(
    Effect.catchTag("NotFound", (e) => Console.log(`${e.message}`).pipe(Effect.as(undefined)))
  )
  yield* Console.log(listing?.data.title)

  // Money moves once per Idempotency-Key: a retry with the same key answers the first transaction.
  const paid = yield* ada.wallet.transfer({
    headers: { "idempotency-key": crypto.randomUUID() },
    payload: { recipient_id: RecordId.make(42), amount: 1.5, description: "Gardening" }
  }).pipe(Effect.catchTag("InsufficientBalance", (e) => Effect.die(e)))
  yield* Console.log(paid.data.id)
}).pipe(Effect.provide(FetchHttpClient.layer))

// The same client as a service of the context.
export const balance = Effect.flatMap(TimebankClient, (client) => client.wallet.get()).pipe(
  Effect.map((wallet) => wallet.data.balance),
  Effect.provide(TimebankClient.layer({ baseUrl, tenant: "acme", token: "…" })),
  Effect.provide(FetchHttpClient.layer)
)
