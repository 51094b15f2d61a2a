import { Layer } from "effect"
import { TenancyHttpLive } from "./TenancyHttp.js"
import { TenantDirectory } from "./TenantDirectory.js"
import { TenantMiddlewareLive } from "./TenantMiddlewareLive.js"

export * from "./FeatureGate.js"
export * from "./TenantDirectory.js"
export * from "./TenantMiddlewareLive.js"
export * from "./TenantRepo.js"
export * from "./TenantResolution.js"
export * from "./TenantService.js"

/** Tenant resolution for every request, plus the tenancy routes. */
export const TenancyLive = TenancyHttpLive.pipe(
  Layer.provideMerge(TenantMiddlewareLive),
  Layer.provide(TenantDirectory.Default)
)
