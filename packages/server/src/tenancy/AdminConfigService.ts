import {
  type AdminSettings,
  type AdminSettingsInput,
  CurrentTenant,
  type FeatureSwitch,
  type Tenant
} from "@timebank/domain"
import { Effect } from "effect"
import { TenantAdmin } from "../platform/Policy.js"
import { TenantService } from "./TenantService.js"

export const adminSettingsOf = (t: Tenant): AdminSettings => ({ ...t.settings, timezone: t.timezone })

/**
 * A community's own configuration, changed by its admins (decisions D3). Every method needs `TenantAdmin`, which
 * only `requireTenantAdmin` provides, and acts on the tenant of the request.
 */
export class AdminConfigService extends Effect.Service<AdminConfigService>()("AdminConfigService", {
  dependencies: [TenantService.Default],
  effect: Effect.gen(function*() {
    const tenants = yield* TenantService

    /** Changes of the request's own tenant: it exists (it was just resolved) and nothing here touches domains. */
    const change = (tenant: Tenant, patch: UpdateTenantPatch) =>
      tenants.update(tenant.id, patch).pipe(Effect.catchTags({ NotFound: Effect.die, AlreadyExists: Effect.die }))

    const setFeature = Effect.fn("AdminConfig.setFeature")(function*(input: FeatureSwitch) {
      yield* TenantAdmin
      const updated = yield* change(yield* CurrentTenant, { features: { [input.feature]: input.enabled } })
      return { feature: input.feature, enabled: updated.isEnabled(input.feature) }
    })

    const settings = Effect.gen(function*() {
      yield* TenantAdmin
      return adminSettingsOf(yield* CurrentTenant)
    }).pipe(Effect.withSpan("AdminConfig.settings"))

    const updateSettings = Effect.fn("AdminConfig.updateSettings")(function*(input: AdminSettingsInput) {
      yield* TenantAdmin
      const tenant = yield* CurrentTenant
      const { timezone, ...rest } = input
      // An empty change is a valid partial update that changes nothing.
      if (timezone === undefined && Object.keys(rest).length === 0) return adminSettingsOf(tenant)
      const updated = yield* change(tenant, {
        ...(Object.keys(rest).length > 0 ? { settings: rest } : {}),
        ...(timezone === undefined ? {} : { timezone })
      })
      return adminSettingsOf(updated)
    })

    return { setFeature, settings, updateSettings } as const
  })
}) {}

type UpdateTenantPatch = {
  readonly features?: Record<string, boolean>
  readonly settings?: Record<string, unknown>
  readonly timezone?: string
}
