import { ApiError } from "../http/ApiError.js"

/** Nothing in the request names a tenant (decisions D3). */
export class TenantRequired extends ApiError<TenantRequired>()("TenantRequired", "tenant_required", 400) {}

/** A header or host names a tenant that does not exist or is suspended (decisions D3). */
export class TenantResolutionFailed
  extends ApiError<TenantResolutionFailed>()("TenantResolutionFailed", "tenant_resolution_failed", 400)
{}
