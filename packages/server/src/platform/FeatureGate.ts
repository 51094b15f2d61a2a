import type { HttpApiMiddleware } from "@effect/platform"
import { CurrentTenant, type Feature, FeatureDisabled, type Module } from "@timebank/domain"
import { type Context, Effect, Layer, Option } from "effect"

/** Fails with 403 `FEATURE_DISABLED` when the current tenant has switched `feature` off (spec "Tenant context" §5). */
export const requireFeature = (feature: Feature) =>
  Effect.flatMap(CurrentTenant, (tenant) =>
    tenant.isEnabled(feature)
      ? Effect.void
      : Effect.fail(new FeatureDisabled({ message: `The ${feature} feature is disabled for this community` })))

/**
 * Fails with 403 `FEATURE_DISABLED` when the current tenant has switched `module` off (decisions D17 "Modules"):
 * the routes of a sub-capability call it where the capability lives, inside a feature that may still be on.
 */
export const requireModule = (module: Module) =>
  Effect.flatMap(CurrentTenant, (tenant) =>
    tenant.isModuleOn(module)
      ? Effect.void
      : Effect.fail(new FeatureDisabled({ message: `The ${module} module is disabled for this community` })))

/**
 * The middleware of a feature-gate tag declared in the contract (`FeatureGate` in the domain): {@link requireFeature}
 * for the tag's feature. Groups add the gate first, so the tenant middleware has run and `CurrentTenant` is there at
 * run time; middleware signatures cannot say so, hence the optional read.
 */
export const featureGateLayer = <I>(
  tag: Context.Tag<I, HttpApiMiddleware.HttpApiMiddleware<void, FeatureDisabled>> & { readonly feature: Feature }
) => {
  const gate = requireFeature(tag.feature)
  return Layer.succeed(
    tag,
    Effect.flatMap(Effect.serviceOption(CurrentTenant), (tenant) =>
      Option.isSome(tenant)
        ? Effect.provideService(gate, CurrentTenant, tenant.value)
        : Effect.die(new Error(`${tag.key} runs only behind the tenant middleware`)))
  )
}
