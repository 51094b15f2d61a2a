import { Layer } from "effect"
import { AdminConfigHttpLive } from "./AdminConfigHttp.js"
import { AdminConfigService } from "./AdminConfigService.js"
import { AdminConfigAreasHttpLive } from "./config/AdminConfigAreasHttp.js"
import { SuperTenantsHttpLive } from "./SuperTenantsHttp.js"
import { SuperTenantsService } from "./SuperTenantsService.js"
import { TenancyHttpLive } from "./TenancyHttp.js"

export * from "../platform/FeatureGate.js"
export * from "./AdminConfigService.js"
export * from "./config/AdminConfigAreasService.js"
export * from "./config/RankingHealth.js"
export * from "./config/TenantConfig.js"
export * from "./FirstAdminAccounts.js"
export * from "./SignInTenantLive.js"
export * from "./SuperTenantsService.js"
export * from "./TenantDirectory.js"
export * from "./TenantRepo.js"
export * from "./TenantResolution.js"
export * from "./TenantService.js"

export { TenancyHttpLive }

/** Super-admin tenants and tenant admins' configuration (decisions D3). */
export const TenancyAdminHttpLive = Layer.mergeAll(
  SuperTenantsHttpLive,
  AdminConfigHttpLive,
  AdminConfigAreasHttpLive
).pipe(
  Layer.provide(Layer.mergeAll(SuperTenantsService.Default, AdminConfigService.Default))
)
