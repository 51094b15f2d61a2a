import {
  CurrentTenant,
  type MatchingConfig,
  type MatchWeights,
  type UpdateMatchingConfig,
  ValidationFailed
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import { MatchingSettingsRepo } from "./MatchingSettingsRepo.js"
import { DEFAULT_MIN_SCORE, DEFAULT_WEIGHTS } from "./MatchScore.js"

const NAMES: ReadonlyArray<keyof MatchWeights> = ["category", "skills", "distance", "availability"]

/** The four weights out of the ranking area's record: a weight it does not hold (or not as a number) is the default. */
const weightsOf = (stored: Readonly<Record<string, number>>): MatchWeights =>
  Object.fromEntries(
    NAMES.map((name) => [name, typeof stored[name] === "number" ? stored[name] : DEFAULT_WEIGHTS[name]])
  ) as unknown as MatchWeights

/** What makes computed matches stale when it changes: the weights and the threshold (not the approval switch). */
export const configKeyOf = (config: MatchingConfig) => JSON.stringify([config.weights, config.min_score])

/**
 * A community's matching configuration (decisions D17 "Matching"). The weights are the ranking area `matching` of
 * the configuration documents (`/admin/config/algorithms` shows and sets the same values); the threshold and the
 * approval switch are matching's own (`matching_settings`).
 */
export class MatchingConfigService extends Effect.Service<MatchingConfigService>()("MatchingConfigService", {
  dependencies: [MatchingSettingsRepo.Default],
  effect: Effect.gen(function*() {
    // One per process (ServicesLive): the configuration routes write what is read here.
    const documents = yield* TenantConfig
    const settings = yield* MatchingSettingsRepo

    const current = Effect.gen(function*() {
      const tenant = yield* CurrentTenant
      const algorithms = yield* documents.get(tenant.id, "algorithms")
      const stored = yield* settings.find
      return {
        weights: weightsOf(algorithms.matching.weights),
        min_score: Option.match(stored, { onNone: () => DEFAULT_MIN_SCORE, onSome: (s) => s.min_score }),
        approval_required: Option.match(stored, { onNone: () => false, onSome: (s) => s.approval_required })
      } satisfies MatchingConfig
    }).pipe(Effect.withSpan("MatchingConfig.current"))

    /** Merges the change over the current configuration; all four weights 0 → 422 on `weights`. */
    const update = Effect.fn("MatchingConfig.update")(function*(patch: UpdateMatchingConfig, actorId: number) {
      const tenant = yield* CurrentTenant
      const before = yield* current
      const next: MatchingConfig = {
        weights: { ...before.weights, ...patch.weights },
        min_score: patch.min_score ?? before.min_score,
        approval_required: patch.approval_required ?? before.approval_required
      }
      if (NAMES.every((name) => next.weights[name] === 0)) {
        return yield* ValidationFailed.field("weights", "must not all be 0")
      }
      if (patch.min_score !== undefined || patch.approval_required !== undefined) {
        yield* settings.save({ min_score: next.min_score, approval_required: next.approval_required }, actorId)
      }
      if (patch.weights !== undefined) {
        const algorithms = yield* documents.get(tenant.id, "algorithms")
        yield* documents.store(tenant.id, "algorithms", {
          ...algorithms,
          matching: { algorithm: algorithms.matching.algorithm, weights: { ...next.weights } }
        }, actorId)
      }
      return next
    })

    return { current, update } as const
  })
}) {}
