import type { AlgorithmArea } from "@timebank/domain"
import { Clock, Effect } from "effect"

export interface RankingRun {
  readonly last_run_at: string
  readonly latency_ms: number
  readonly runs: number
}

/** At most this many tenants are remembered per runner; the oldest entry goes first. */
const MAX_TENANTS = 10_000

/**
 * The last ranking each area did per tenant on this runner, and how long it took (D17 `/config/algorithm-health`).
 * The ranking code measures itself with {@link RankingHealth.measure}; nothing is stored in the database.
 */
export class RankingHealth extends Effect.Service<RankingHealth>()("RankingHealth", {
  sync: () => {
    const runs = new Map<number, Map<AlgorithmArea, RankingRun>>()

    const record = (tenantId: number, area: AlgorithmArea, at: number, latencyMs: number) => {
      let areas = runs.get(tenantId)
      if (areas === undefined) {
        if (runs.size >= MAX_TENANTS) runs.delete(runs.keys().next().value!)
        areas = new Map()
        runs.set(tenantId, areas)
      }
      const before = areas.get(area)
      areas.set(area, {
        last_run_at: new Date(at).toISOString(),
        latency_ms: latencyMs,
        runs: (before?.runs ?? 0) + 1
      })
    }

    /** Runs a ranking and records when it ran and how long it took (also when it failed). */
    const measure = <A, E, R>(tenantId: number, area: AlgorithmArea, ranking: Effect.Effect<A, E, R>) =>
      Effect.flatMap(Clock.currentTimeMillis, (start) =>
        ranking.pipe(
          Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (end) =>
            Effect.sync(() =>
              record(tenantId, area, start, end - start)
            )))
        ))

    const of = (tenantId: number, area: AlgorithmArea): RankingRun | null => runs.get(tenantId)?.get(area) ?? null

    return { measure, of: (tenantId: number, area: AlgorithmArea) => Effect.sync(() => of(tenantId, area)) } as const
  }
}) {}
