import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { TenantRequired, TenantResolutionFailed } from "./TenancyErrors.js"
import { CurrentTenant, TenantPublic } from "./Tenant.js"

/** Resolves the tenant from `X-Tenant-ID`, `X-Tenant-Slug`, then the host, and provides `CurrentTenant`. */
export class TenantMiddleware extends HttpApiMiddleware.Tag<TenantMiddleware>()("TenantMiddleware", {
  failure: Schema.Union(httpError(TenantRequired), httpError(TenantResolutionFailed)),
  provides: CurrentTenant
}) {}

export class TenancyApi extends HttpApiGroup.make("tenancy")
  .add(
    HttpApiEndpoint.get("current", "/api/v2/tenant")
      .addSuccess(DataEnvelope(TenantPublic))
      .annotate(
        OpenApi.Description,
        "The community this request is addressed to: name, timezone, language and feature switches"
      )
  )
  .middleware(TenantMiddleware)
{}
