import { HttpApiBuilder } from "@effect/platform"
import { Api, CurrentTenant, ok, TenantPublicView } from "@timebank/domain"
import { Effect } from "effect"
import { TenantConfig } from "./config/TenantConfig.js"
import { toPublic } from "./TenantService.js"

export const TenancyHttpLive = HttpApiBuilder.group(Api, "tenancy", (handlers) =>
  Effect.gen(function*() {
    const config = yield* TenantConfig
    return handlers.handle("current", () =>
      Effect.gen(function*() {
        const tenant = yield* CurrentTenant
        const docs = yield* config.all(tenant.id)
        return ok(TenantPublicView.make({ ...toPublic(tenant), seo: docs.seo, native_app: docs.native_app }))
      }))
  }))
