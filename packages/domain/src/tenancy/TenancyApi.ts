import { HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { AuthRequired, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { NativeAppConfig, SeoConfig } from "./ConfigAreas.js"
import { TenantRequired, TenantResolutionFailed } from "./TenancyErrors.js"
import { CurrentTenant, TenantPublic } from "./Tenant.js"

/** The public view of the community with the configuration areas clients show (decisions D17: SEO, native app). */
export class TenantPublicView extends TenantPublic.extend<TenantPublicView>("TenantPublicView")({
  seo: SeoConfig,
  native_app: NativeAppConfig
}) {}

/**
 * Resolves the tenant from `X-Tenant-ID`, `X-Tenant-Slug`, then the host, and provides `CurrentTenant`. Credentials
 * sent with the request (a bearer token, a session cookie) must be good in that tenant, on every route — public
 * ones included: otherwise 401 `AUTH_REQUIRED` (decisions D4).
 */
export class TenantMiddleware extends HttpApiMiddleware.Tag<TenantMiddleware>()("TenantMiddleware", {
  failure: Schema.Union(httpError(TenantRequired), httpError(TenantResolutionFailed), httpError(AuthRequired)),
  provides: CurrentTenant
}) {}

/**
 * The tenant of the sign-in routes (register, login, refresh, CSRF token, password reset), which authenticate by
 * what their body carries: a token sent along (often a stale one, by clients that always attach it) is ignored.
 */
export class SignInTenant extends HttpApiMiddleware.Tag<SignInTenant>()("SignInTenant", {
  failure: Schema.Union(httpError(TenantRequired), httpError(TenantResolutionFailed)),
  provides: CurrentTenant
}) {}

export class TenancyApi extends HttpApiGroup.make("tenancy")
  .annotate(OpenApi.Title, "Community")
  .annotate(OpenApi.Description, "The community (tenant) a request is addressed to")
  .add(
    HttpApiEndpoint.get("current", "/api/v2/tenant")
      .annotate(OpenApi.Summary, "Get this community")
      .addSuccess(DataEnvelope(TenantPublicView))
      .annotate(
        OpenApi.Description,
        "The community this request is addressed to: name, timezone, language, feature switches, SEO and native app"
      )
  )
  .middleware(TenantMiddleware)
{}
