import { TenancyHttpLive } from "./TenancyHttp.js"

export * from "./FeatureGate.js"
export * from "./TenantDirectory.js"
export * from "./TenantMiddlewareLive.js"
export * from "./TenantRepo.js"
export * from "./TenantResolution.js"
export * from "./TenantService.js"

export { TenancyHttpLive }
