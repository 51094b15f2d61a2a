import {
  type AiConfig,
  type AlgorithmArea,
  AlgorithmArea as AlgorithmAreas,
  type AlgorithmHealth,
  type AlgorithmSettingInput,
  type ConfigArea,
  ConfigAreas,
  type ConfigDocument,
  type ConfigOverview,
  CurrentTenant,
  type LanguagesConfig,
  type Tenant,
  ValidationFailed
} from "@timebank/domain"
import { Array as Arr, Effect, type Schema } from "effect"
import { TenantAdmin } from "../../platform/Policy.js"
import { decodeInput } from "../../platform/Validation.js"
import { TenantService } from "../TenantService.js"
import { RankingHealth } from "./RankingHealth.js"
import { TenantConfig } from "./TenantConfig.js"

/** The areas whose document is stored as a whole (languages keeps its `default` in the tenant settings). */
export type PlainArea = Exclude<ConfigArea, "languages" | "algorithms">

/** An area's whole document, validated with its schema: each bad key is a 422 with its dotted field. */
const validate = <A extends ConfigArea>(area: A, document: unknown) =>
  decodeInput(ConfigAreas[area].schema as unknown as Schema.Schema<ConfigDocument<A>, unknown>)(document)

const fail = (issues: ReadonlyArray<{ readonly field: string; readonly message: string }>) =>
  Arr.isNonEmptyReadonlyArray(issues) ? Effect.fail(new ValidationFailed({ issues })) : Effect.void

/** What a whole document must also satisfy beyond each key's own type. */
const crossChecks: {
  readonly [A in PlainArea]?: (document: ConfigDocument<A>) => Effect.Effect<void, ValidationFailed>
} = {
  // A provider that calls out needs to know where and which model; `none` never calls out.
  ai: (ai: AiConfig) =>
    fail(
      ai.provider === "openai_compatible"
        ? (["base_url", "model"] as const).filter((key) => ai[key] === null).map((field) => ({
          field,
          message: "is required when provider is openai_compatible"
        }))
        : []
    )
}

const languagesOf = (tenant: Tenant, stored: LanguagesConfig): LanguagesConfig => ({
  default: tenant.settings.default_language,
  enabled: stored.enabled
})

/**
 * A community's configuration areas and ranking algorithms (decisions D17 "Config"), changed by its admins. Every
 * method needs `TenantAdmin`, which only `requireTenantAdmin` provides, and acts on the tenant of the request.
 */
export class AdminConfigAreasService extends Effect.Service<AdminConfigAreasService>()("AdminConfigAreasService", {
  effect: Effect.gen(function*() {
    // All three are one per process (ServicesLive): the features they configure read the same instances.
    const config = yield* TenantConfig
    const health = yield* RankingHealth
    const tenants = yield* TenantService

    const context = Effect.all({ actor: TenantAdmin, tenant: CurrentTenant })

    const overview = Effect.gen(function*() {
      const { tenant } = yield* context
      const docs = yield* config.all(tenant.id)
      return {
        features: tenant.effectiveFeatures(),
        modules: tenant.effectiveModules(),
        ai: docs.ai,
        feed_algorithm: docs.feed_algorithm,
        images: docs.images,
        seo: docs.seo,
        languages: languagesOf(tenant, docs.languages),
        native_app: docs.native_app
      } satisfies ConfigOverview
    }).pipe(Effect.withSpan("AdminConfigAreas.overview"))

    const area = <A extends PlainArea>(name: A) => Effect.flatMap(context, ({ tenant }) => config.get(tenant.id, name))

    /** The given keys merged over the stored document, validated whole, stored; answers the whole document. */
    const updateArea = <A extends PlainArea>(name: A, patch: Partial<ConfigDocument<A>>) =>
      Effect.gen(function*() {
        const { actor, tenant } = yield* context
        const merged = yield* validate(name, { ...(yield* config.get(tenant.id, name)), ...patch })
        const check = crossChecks[name] as ((d: ConfigDocument<A>) => Effect.Effect<void, ValidationFailed>) | undefined
        if (check !== undefined) yield* check(merged)
        yield* config.store(tenant.id, name, merged, actor.userId)
        return merged
      }).pipe(Effect.withSpan("AdminConfigAreas.update", { attributes: { area: name } }))

    const languages = Effect.flatMap(
      context,
      ({ tenant }) => Effect.map(config.get(tenant.id, "languages"), (stored) => languagesOf(tenant, stored))
    )

    /** `default` is the tenant setting `default_language` (the notifications' fallback); `enabled` is stored here. */
    const updateLanguages = Effect.fn("AdminConfigAreas.updateLanguages")(function*(patch: Partial<LanguagesConfig>) {
      const { actor, tenant } = yield* context
      const current = languagesOf(tenant, yield* config.get(tenant.id, "languages"))
      const merged = yield* validate("languages", { ...current, ...patch })
      if (!merged.enabled.includes(merged.default)) {
        return yield* ValidationFailed.field("default", "must be one of the enabled languages")
      }
      if (merged.default !== current.default) {
        yield* tenants.update(tenant.id, { settings: { default_language: merged.default } }).pipe(
          // The request's own tenant exists (it was just resolved) and the change names no domain.
          Effect.catchTags({ NotFound: Effect.die, AlreadyExists: Effect.die })
        )
      }
      // Only `enabled` is stored: a stored `default` could disagree with the setting that notifications read.
      yield* config.store(
        tenant.id,
        "languages",
        { enabled: merged.enabled } as unknown as LanguagesConfig,
        actor.userId
      )
      return merged
    })

    const algorithms = Effect.flatMap(context, ({ tenant }) => config.get(tenant.id, "algorithms"))

    /** Sets one area; weights left out keep their values. */
    const setAlgorithm = Effect.fn("AdminConfigAreas.setAlgorithm")(
      function*(name: AlgorithmArea, input: AlgorithmSettingInput) {
        const { actor, tenant } = yield* context
        const current = yield* config.get(tenant.id, "algorithms")
        const setting = { algorithm: input.algorithm, weights: input.weights ?? current[name].weights }
        const merged = yield* validate("algorithms", { ...current, [name]: setting })
        yield* config.store(tenant.id, "algorithms", merged, actor.userId)
        return merged[name]
      }
    )

    const algorithmHealth = Effect.gen(function*() {
      const { tenant } = yield* context
      const settings = yield* config.get(tenant.id, "algorithms")
      return yield* Effect.forEach(
        AlgorithmAreas.literals,
        (name) =>
          Effect.map(health.of(tenant.id, name), (run): AlgorithmHealth => ({
            area: name,
            algorithm: settings[name].algorithm,
            last_run_at: run?.last_run_at ?? null,
            latency_ms: run?.latency_ms ?? null,
            runs: run?.runs ?? 0
          }))
      )
    }).pipe(Effect.withSpan("AdminConfigAreas.algorithmHealth"))

    return {
      overview,
      area,
      updateArea,
      languages,
      updateLanguages,
      algorithms,
      setAlgorithm,
      algorithmHealth
    } as const
  })
}) {}
