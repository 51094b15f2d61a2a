import type { FederationToggle } from "@timebank/domain"
import { Duration, Effect } from "effect"
import { makeTenantCache, TenantCaches } from "../../platform/TenantCaches.js"
import { FederationSwitchesRepo, type TenantFederation } from "./FederationSwitchesRepo.js"

/**
 * How long a runner reuses the switches it read. Every federation request consults them, so they are cached; a
 * change drops the cached copy on every runner at once (the cache bus), and this bounds a copy whose drop was
 * lost: inside D13a's 5 seconds.
 */
export const SWITCHES_TTL = Duration.seconds(2)

/** The registry's name of the switches cache. */
export const SWITCHES_CACHE = "federation-switches"

/** One entry per community, and the platform switch, which belongs to no tenant. */
type SwitchesKey = "platform" | number
type SwitchesEntry =
  | { readonly _tag: "Platform"; readonly enabled: boolean }
  | { readonly _tag: "Tenant"; readonly settings: TenantFederation }

/**
 * The federation switches (decisions D13): the platform's `federation_enabled`, each community's whitelist and
 * per-feature toggles. Reads are cached per runner for {@link SWITCHES_TTL}; writes go to PostgreSQL and drop the
 * cached copies on every runner.
 */
export class FederationSwitches extends Effect.Service<FederationSwitches>()("FederationSwitches", {
  dependencies: [FederationSwitchesRepo.Default, TenantCaches.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederationSwitchesRepo
    const cache = yield* makeTenantCache({
      name: SWITCHES_CACHE,
      capacity: 10_000,
      timeToLive: SWITCHES_TTL,
      lookup: (key: SwitchesKey): Effect.Effect<SwitchesEntry> =>
        key === "platform"
          ? Effect.map(repo.platformEnabled, (enabled) => ({ _tag: "Platform", enabled }))
          : Effect.map(repo.tenant(key), (settings) => ({ _tag: "Tenant", settings })),
      tenantOf: (key) => (key === "platform" ? null : key)
    })
    const platformEnabled = Effect.map(cache.get("platform"), (e) => e._tag === "Platform" && e.enabled)
    const tenantSettings = (tenantId: number) =>
      Effect.flatMap(
        cache.get(tenantId),
        (e) =>
          e._tag === "Tenant" ? Effect.succeed(e.settings) : Effect.dieMessage("switches cache: not a tenant entry")
      )

    return {
      /** Whether federation is on for the platform (the kill switch "off"). */
      platformEnabled,
      /** A community's whitelist and toggles. */
      tenant: (tenantId: number): Effect.Effect<TenantFederation> => tenantSettings(tenantId),
      /**
       * Whether a request that names its community itself (not by a key: `{CODE}` routes, Credit Commons) may use
       * `toggle` there: platform switch, an active whitelisted community, the toggle (decisions D13a's order).
       */
      openFor: (tenant: { readonly id: number; readonly status: string }, toggle: FederationToggle) =>
        Effect.gen(function*() {
          if (!(yield* platformEnabled) || tenant.status !== "active") return false
          const settings = yield* tenantSettings(tenant.id)
          return settings.whitelisted && settings.toggles[toggle]
        }),
      /** Read fresh, for the admin routes: what they show must be what was just saved. */
      platformEnabledNow: repo.platformEnabled,
      tenantNow: repo.tenant,
      setPlatformEnabled: (enabled: boolean) =>
        Effect.zipRight(repo.setPlatformEnabled(enabled), cache.invalidateTenant(null)),
      setWhitelisted: (tenantId: number, whitelisted: boolean) =>
        Effect.zipRight(repo.setWhitelisted(tenantId, whitelisted), cache.invalidateTenant(tenantId)),
      setToggles: (tenantId: number, changes: Partial<Record<FederationToggle, boolean>>) =>
        Effect.zipRight(repo.setToggles(tenantId, changes), cache.invalidateTenant(tenantId))
    } as const
  })
}) {}
