import { HttpApiBuilder, HttpApiSwagger, HttpServerResponse } from "@effect/platform"
import { Api } from "@timebank/domain"
import { Effect, Layer } from "effect"
import { AppConfig } from "./platform/AppConfig.js"
import { DecodeErrorsLive, httpEdge } from "./platform/HttpEdge.js"
import { RouteTable } from "./platform/RouteTable.js"
import { SystemHttpLive } from "./system/index.js"
import { TenancyLive, TenantService } from "./tenancy/index.js"

const DOCS_PATH = "/api/docs"
const OPENAPI_PATH = "/api/v2/openapi.json"
const FRAMEWORK_HEALTH_PATH = "/api/framework/health"

/** Routes served outside the HttpApi contract. */
const RawRoutesLive = HttpApiBuilder.Router.use((router) =>
  router.get(FRAMEWORK_HEALTH_PATH, HttpServerResponse.unsafeJson({ status: "ok" }))
)

/** Every feature's handlers and middleware. */
const FeaturesLive = Layer.mergeAll(SystemHttpLive, TenancyLive)

/** The service's services that features and operators share. */
export const ServicesLive = TenantService.Default

/** The HTTP API with docs, OpenAPI, the edge middleware and every feature; needs an HttpServer and the platform. */
export const HttpLive = Layer.unwrapEffect(Effect.gen(function*() {
  const config = yield* AppConfig
  const routes = RouteTable.fromApi(Api, [
    { method: "GET", path: FRAMEWORK_HEALTH_PATH },
    { method: "GET", path: OPENAPI_PATH },
    { method: "GET", path: DOCS_PATH }
  ])
  return HttpApiBuilder.serve().pipe(
    Layer.provide(httpEdge({ routes, maxBodyBytes: config.maxBodyBytes })),
    Layer.provide(HttpApiSwagger.layer({ path: DOCS_PATH })),
    Layer.provide(HttpApiBuilder.middlewareOpenApi({ path: OPENAPI_PATH })),
    Layer.provide(RawRoutesLive),
    Layer.provide(DecodeErrorsLive),
    Layer.provide(HttpApiBuilder.api(Api).pipe(Layer.provide(FeaturesLive)))
  )
}))
