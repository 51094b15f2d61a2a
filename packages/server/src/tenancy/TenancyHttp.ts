import { HttpApiBuilder, HttpServerResponse } from "@effect/platform"
import { Api, CurrentTenant, DataEnvelope, ok, type Tenant, TenantPublicView } from "@timebank/domain"
import { Effect, Schema } from "effect"
import { TenantConfig } from "./config/TenantConfig.js"
import { toPublic } from "./TenantService.js"

const encodeView = Schema.encode(DataEnvelope(TenantPublicView))

type Documents = Effect.Effect.Success<ReturnType<TenantConfig["all"]>>

/** The answer, encoded as the contract's schema encodes it. */
const answerOf = (tenant: Tenant, docs: Documents) =>
  Effect.flatMap(
    Effect.orDie(
      encodeView(ok(TenantPublicView.make({ ...toPublic(tenant), seo: docs.seo, native_app: docs.native_app })))
    ),
    (body) => Effect.orDie(HttpServerResponse.json(body))
  )

export const TenancyHttpLive = HttpApiBuilder.group(Api, "tenancy", (handlers) =>
  Effect.gen(function*() {
    const config = yield* TenantConfig
    // The answer changes only with the tenant or its documents, which the caches hand out as the same objects until
    // either changes (or expires): it is encoded once per pair, not per request.
    const answers = new WeakMap<
      Tenant,
      { readonly docs: Documents; readonly response: HttpServerResponse.HttpServerResponse }
    >()
    return handlers.handle("current", () =>
      Effect.flatMap(CurrentTenant, (tenant) =>
        Effect.flatMap(config.all(tenant.id), (docs) => {
          const known = answers.get(tenant)
          if (known !== undefined && known.docs === docs) {
            return Effect.succeed(known.response)
          }
          return Effect.tap(
            answerOf(tenant, docs),
            (response) =>
              Effect.sync(() => answers.set(tenant, { docs, response }))
          )
        })))
  }))
