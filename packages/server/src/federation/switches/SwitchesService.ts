import {
  CurrentTenant,
  type FederationSettingsInput,
  NotFound,
  type PlatformFederation,
  type SetTenantWhitelist,
  type TenantFederationView,
  TenantId
} from "@timebank/domain"
import { Effect, Option } from "effect"
import { PlatformAdmin, requirePlatformAdmin, requireTenantAdmin, TenantAdmin } from "../../platform/Policy.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import { FederationSwitches } from "./FederationSwitches.js"

/**
 * The admin side of the federation switches (decisions D13, D13a): the platform switch and the whitelist for
 * platform super-admins, a community's toggles for its admins. Reads are fresh (not the per-runner cache), so an
 * admin sees what was just saved; these routes work whatever the switches say.
 */
export class SwitchesService extends Effect.Service<SwitchesService>()("FederationSwitchesService", {
  dependencies: [FederationSwitches.Default, TenantDirectory.Default, FederationAccounts.Default],
  effect: Effect.gen(function*() {
    const switches = yield* FederationSwitches
    const tenants = yield* TenantDirectory
    const accounts = yield* FederationAccounts

    const platform = Effect.map(switches.platformEnabledNow, (enabled): PlatformFederation => ({ enabled }))

    const existingTenant = (id: number) =>
      Effect.flatMap(
        tenants.findById(id),
        Option.match({ onNone: () => Effect.fail(NotFound.of("Tenant")), onSome: Effect.succeed })
      )

    const tenantView = (id: number) =>
      Effect.map(switches.tenantNow(id), (t): TenantFederationView => ({
        tenant_id: TenantId.make(id),
        whitelisted: t.whitelisted,
        toggles: t.toggles
      }))

    /** The eight toggles and the currency code as `data`, the super-admins' switches above them as `meta`. */
    const settingsOf = (tenantId: number) =>
      Effect.map(
        Effect.all([switches.tenantNow(tenantId), switches.platformEnabledNow, accounts.currencyCode(tenantId)]),
        ([t, enabled, code]) => ({
          data: { ...t.toggles, currency_code: code },
          meta: { platform_enabled: enabled, whitelisted: t.whitelisted }
        })
      )

    return {
      platform: Effect.zipRight(PlatformAdmin, platform).pipe(requirePlatformAdmin),

      setPlatform: Effect.fn("FederationSwitches.setPlatform")(function*(input: PlatformFederation) {
        yield* PlatformAdmin
        yield* switches.setPlatformEnabled(input.enabled)
        return yield* platform
      }, requirePlatformAdmin),

      tenant: Effect.fn("FederationSwitches.tenant")(function*(id: number) {
        yield* PlatformAdmin
        yield* existingTenant(id)
        return yield* tenantView(id)
      }, requirePlatformAdmin),

      setTenant: Effect.fn("FederationSwitches.setTenant")(function*(id: number, input: SetTenantWhitelist) {
        yield* PlatformAdmin
        yield* existingTenant(id)
        yield* switches.setWhitelisted(id, input.whitelisted)
        return yield* tenantView(id)
      }, requirePlatformAdmin),

      settings: Effect.gen(function*() {
        yield* TenantAdmin
        return yield* settingsOf((yield* CurrentTenant).id)
      }).pipe(requireTenantAdmin),

      updateSettings: Effect.fn("FederationSwitches.updateSettings")(function*(input: FederationSettingsInput) {
        yield* TenantAdmin
        const tenant = yield* CurrentTenant
        const { currency_code, ...toggles } = input
        if (currency_code !== undefined) yield* accounts.setCurrencyCode(tenant.id, currency_code)
        // An empty change is a valid partial update that changes nothing.
        if (Object.keys(toggles).length > 0) yield* switches.setToggles(tenant.id, toggles)
        return yield* settingsOf(tenant.id)
      }, requireTenantAdmin)
    } as const
  })
}) {}
