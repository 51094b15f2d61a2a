import { CurrentTenant, type Feature, FeatureDisabled } from "@timebank/domain"
import { Effect } from "effect"

/** Fails with 403 `FEATURE_DISABLED` when the current tenant has switched `feature` off (spec "Tenant context" §5). */
export const requireFeature = (feature: Feature) =>
  Effect.flatMap(CurrentTenant, (tenant) =>
    tenant.isEnabled(feature)
      ? Effect.void
      : Effect.fail(new FeatureDisabled({ message: `The ${feature} feature is disabled for this community` })))
