import { Effect, Layer } from "effect"
import { registerJobs } from "../platform/JobRegistry.js"
import { TokenPurgeRepo } from "./TokenPurgeRepo.js"

const BATCH = 1_000

/** Repeats a bounded delete until a batch is not full; answers how many rows went. */
const drain = (statement: () => Effect.Effect<number>) =>
  Effect.gen(function*() {
    let total = 0
    for (;;) {
      const n = yield* statement()
      total += n
      if (n < BATCH) return total
    }
  })

/**
 * `tokens.purge` (decisions D17 "Jobs"), nightly per community: expired access tokens, dead refresh tokens and
 * spent password reset tokens are deleted (TokenPurgeRepo says which). Its items are the rows deleted. Federation's
 * HMAC nonces are not among them: they belong to a key, not a community, and their store deletes expired ones itself.
 */
export const IdentityJobsLive = registerJobs(Effect.map(TokenPurgeRepo, (repo) => [{
  id: "tokens.purge",
  description: "Deletes expired access tokens, dead refresh tokens and spent password reset tokens",
  schedule: "0 3 * * *",
  run: ({ at, tenantId }) =>
    Effect.map(
      Effect.all([
        drain(() => repo.accessTokens(tenantId, at, BATCH)),
        drain(() => repo.refreshTokens(tenantId, at, BATCH)),
        drain(() => repo.passwordResetTokens(tenantId, at, BATCH))
      ]),
      (counts) => counts.reduce((a, b) => a + b, 0)
    )
}])).pipe(Layer.provide(TokenPurgeRepo.Default))
