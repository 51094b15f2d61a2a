import { Effect, Option } from "effect"
import { TenantSql } from "../../platform/TenantSql.js"
import { CreditCommonsRepo, type RelayInsert } from "./CreditCommonsRepo.js"
import { seedDigest } from "./HashChain.js"

/** A partner's chain as the chain store needs it: its id and the seed its admins set (`credentials.hash_seed`). */
export interface ChainKey {
  readonly partnerId: number
  readonly seed: string
}

/** What one step on the chain did: its answer, and the relay that advanced the chain, if one did. */
export interface ChainStep<A> {
  readonly result: A
  readonly advance?: Omit<RelayInsert, "partnerId" | "hashBefore">
}

/**
 * The Credit Commons hash chain of each partner (decisions D16), both directions on one chain. Every step that may
 * advance it (a relay received, a relay sent) runs with the chain's row locked in a transaction held around the
 * step, the partner's HTTP call included, so that two runners, or an inbound and an outbound relay, can never both
 * build on the same hash. Within a process the steps of one partner also queue on a semaphore, so that they wait
 * without each holding a pooled connection.
 *
 * The chain starts at the seed; a seed that differs from the one the chain descends from (the admin set a new
 * one) restarts it at the new seed. Needs `CurrentTenant`: the partner's community.
 */
export class CreditCommonsChains extends Effect.Service<CreditCommonsChains>()("CreditCommonsChains", {
  dependencies: [CreditCommonsRepo.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const repo = yield* CreditCommonsRepo
    const db = yield* TenantSql
    const semaphores = new Map<number, Effect.Semaphore>()

    const semaphoreOf = (partnerId: number) => {
      let semaphore = semaphores.get(partnerId)
      if (semaphore === undefined) {
        semaphore = Effect.unsafeMakeSemaphore(1)
        semaphores.set(partnerId, semaphore)
      }
      return semaphore
    }

    /** Runs `step` on the chain's current hash, alone; when it returns `advance`, records it and moves on. */
    const withChain = <A, E, R>(key: ChainKey, step: (lastHash: string) => Effect.Effect<ChainStep<A>, E, R>) => {
      const digest = seedDigest(key.seed)
      return db.transaction(Effect.gen(function*() {
        yield* repo.ensureChain(key.partnerId, digest, key.seed)
        const row = yield* repo.lockChain(key.partnerId)
        if (Option.isNone(row)) return yield* Effect.dieMessage("Credit Commons chain missing after its insert")
        let lastHash = row.value.last_hash
        if (row.value.seed_digest !== digest) {
          yield* repo.setChain(key.partnerId, digest, key.seed)
          lastHash = key.seed
        }
        const { advance, result } = yield* step(lastHash)
        if (advance !== undefined) {
          yield* repo.insertRelay({ ...advance, partnerId: key.partnerId, hashBefore: lastHash })
          yield* repo.setChain(key.partnerId, digest, advance.hashAfter)
        }
        return result
      })).pipe(semaphoreOf(key.partnerId).withPermits(1))
    }

    /** The chain's hash now, without locking or writing: the seed while the chain has none or an older seed's. */
    const currentHash = (key: ChainKey) =>
      Effect.map(
        repo.readChain(key.partnerId),
        (row) => Option.isSome(row) && row.value.seed_digest === seedDigest(key.seed) ? row.value.last_hash : key.seed
      )

    return {
      withChain,
      currentHash,
      relayOf: repo.relayOf,
      accountRelays: repo.accountRelays,
      activePartners: repo.activePartners
    } as const
  })
}) {}
