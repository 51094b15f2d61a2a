import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { AppConfig, HttpLive, PlatformLive, ServicesLive, TenantService } from "@timebank/server"
import { Console, Effect, Layer } from "effect"
import { createServer } from "node:http"

/** Seeds the demo community and tells the operator where everything is. */
const Banner = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const { created, tenant } = yield* (yield* TenantService).ensureDemo()
  const base = `http://localhost:${config.port}`
  yield* Console.log([
    "",
    `timebank API   ${base}/api/v2/health`,
    `docs           ${base}/api/docs`,
    `OpenAPI        ${base}/api/v2/openapi.json`,
    `demo tenant    slug "${tenant.slug}" (id ${tenant.id})${created ? " — seeded now" : ""}`,
    `try            curl -H 'X-Tenant-Slug: ${tenant.slug}' ${base}/api/v2/tenant`,
    ""
  ].join("\n"))
}))

const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

const MainLive = Layer.mergeAll(HttpLive.pipe(HttpServer.withLogAddress, Layer.provide(ServerLive)), Banner).pipe(
  Layer.provide(ServicesLive),
  Layer.provide(PlatformLive)
)

Layer.launch(MainLive).pipe(NodeRuntime.runMain)
