import {
  type AdminSettings,
  type AdminSettingsInput,
  CurrentTenant,
  type EffectiveFeatures,
  type EffectiveModules,
  type FeaturesPayload,
  type FeatureSwitch,
  type Tenant,
  ValidationFailed
} from "@timebank/domain"
import { Effect } from "effect"
import { TenantAdmin } from "../platform/Policy.js"
import { TenantConfig } from "./config/TenantConfig.js"
import { TenantService } from "./TenantService.js"

export const adminSettingsOf = (t: Tenant): AdminSettings => ({ ...t.settings, name: t.name, timezone: t.timezone })

const isSwitch = (input: FeaturesPayload): input is FeatureSwitch => "feature" in input

/** Whether a partial change gives any value. */
const given = (input: object) => Object.values(input).some((v) => v !== undefined)

/**
 * A community's own configuration, changed by its admins (decisions D3, D17). Every method needs `TenantAdmin`,
 * which only `requireTenantAdmin` provides, and acts on the tenant of the request.
 */
export class AdminConfigService extends Effect.Service<AdminConfigService>()("AdminConfigService", {
  dependencies: [TenantService.Default],
  effect: Effect.gen(function*() {
    const tenants = yield* TenantService
    const config = yield* TenantConfig

    /** The default language must be one the community enabled (`/config/languages`), as that route also checks. */
    const checkLanguage = (tenant: Tenant, language: string | undefined) =>
      language === undefined ?
        Effect.void :
        Effect.flatMap(config.get(tenant.id, "languages"), (languages) =>
          (languages.enabled as ReadonlyArray<string>).includes(language)
            ? Effect.void
            : ValidationFailed.field("default_language", "must be one of the enabled languages"))

    /** Changes of the request's own tenant: it exists (it was just resolved) and nothing here touches domains. */
    const change = (tenant: Tenant, patch: UpdateTenantPatch) =>
      tenants.update(tenant.id, patch).pipe(Effect.catchTags({ NotFound: Effect.die, AlreadyExists: Effect.die }))

    /** D3's single switch answers that switch; D17's partial map answers every feature. */
    const setFeatures = Effect.fn("AdminConfig.setFeatures")(function*(input: FeaturesPayload) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      if (isSwitch(input)) {
        const updated = yield* change(tenant, { features: { [input.feature]: input.enabled } })
        return { feature: input.feature, enabled: updated.isEnabled(input.feature) } satisfies FeatureSwitch
      }
      // An empty map is a valid partial update that changes nothing.
      const updated = given(input) ? yield* change(tenant, { features: input as Record<string, boolean> }) : tenant
      return updated.effectiveFeatures() satisfies EffectiveFeatures
    })

    const setModules = Effect.fn("AdminConfig.setModules")(function*(input: Partial<EffectiveModules>) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const updated = given(input) ? yield* change(tenant, { modules: input as Record<string, boolean> }) : tenant
      return updated.effectiveModules() satisfies EffectiveModules
    })

    const settings = Effect.gen(function*() {
      yield* TenantAdmin
      return adminSettingsOf(yield* CurrentTenant)
    }).pipe(Effect.withSpan("AdminConfig.settings"))

    const updateSettings = Effect.fn("AdminConfig.updateSettings")(function*(input: AdminSettingsInput) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const { name, timezone, ...rest } = input
      // An empty change is a valid partial update that changes nothing.
      if (name === undefined && timezone === undefined && !given(rest)) return adminSettingsOf(tenant)
      yield* checkLanguage(tenant, rest.default_language)
      const updated = yield* change(tenant, {
        ...(given(rest) ? { settings: rest } : {}),
        ...(timezone === undefined ? {} : { timezone }),
        ...(name === undefined ? {} : { name })
      })
      return adminSettingsOf(updated)
    })

    return { setFeatures, setModules, settings, updateSettings } as const
  })
}) {}

type UpdateTenantPatch = {
  readonly name?: string
  readonly features?: Record<string, boolean>
  readonly modules?: Record<string, boolean>
  readonly settings?: Record<string, unknown>
  readonly timezone?: string
}
