import type { FederationToggle } from "@timebank/domain"
import { Cache, Duration, Effect } from "effect"
import { FederationSwitchesRepo, type TenantFederation } from "./FederationSwitchesRepo.js"

/**
 * How long a runner reuses the switches it read. Every federation request consults them, so they are cached; a
 * change made on this runner invalidates its cache at once, and other runners see it when their copy expires:
 * within this time, inside D13a's 5 seconds.
 */
export const SWITCHES_TTL = Duration.seconds(2)

/**
 * The federation switches (decisions D13): the platform's `federation_enabled`, each community's whitelist and
 * per-feature toggles. Reads are cached per runner for {@link SWITCHES_TTL}; writes go to PostgreSQL.
 */
export class FederationSwitches extends Effect.Service<FederationSwitches>()("FederationSwitches", {
  dependencies: [FederationSwitchesRepo.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederationSwitchesRepo
    const platform = yield* Cache.make({
      capacity: 1,
      timeToLive: SWITCHES_TTL,
      lookup: (_: "platform") => repo.platformEnabled
    })
    const tenants = yield* Cache.make({ capacity: 10_000, timeToLive: SWITCHES_TTL, lookup: repo.tenant })

    return {
      /** Whether federation is on for the platform (the kill switch "off"). */
      platformEnabled: platform.get("platform"),
      /** A community's whitelist and toggles. */
      tenant: (tenantId: number): Effect.Effect<TenantFederation> => tenants.get(tenantId),
      /**
       * Whether a request that names its community itself (not by a key: `{CODE}` routes, Credit Commons) may use
       * `toggle` there: platform switch, an active whitelisted community, the toggle (decisions D13a's order).
       */
      openFor: (tenant: { readonly id: number; readonly status: string }, toggle: FederationToggle) =>
        Effect.gen(function*() {
          if (!(yield* platform.get("platform")) || tenant.status !== "active") return false
          const settings = yield* tenants.get(tenant.id)
          return settings.whitelisted && settings.toggles[toggle]
        }),
      /** Read fresh, for the admin routes: what they show must be what was just saved. */
      platformEnabledNow: repo.platformEnabled,
      tenantNow: repo.tenant,
      setPlatformEnabled: (enabled: boolean) =>
        Effect.zipRight(repo.setPlatformEnabled(enabled), platform.invalidateAll),
      setWhitelisted: (tenantId: number, whitelisted: boolean) =>
        Effect.zipRight(repo.setWhitelisted(tenantId, whitelisted), tenants.invalidate(tenantId)),
      setToggles: (tenantId: number, changes: Partial<Record<FederationToggle, boolean>>) =>
        Effect.zipRight(repo.setToggles(tenantId, changes), tenants.invalidate(tenantId))
    } as const
  })
}) {}
