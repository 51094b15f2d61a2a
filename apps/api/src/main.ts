import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import {
  AppConfig,
  bootstrapSuperAdmin,
  ClusterFeaturesLive,
  DEMO_ADMIN_EMAIL,
  DEMO_ADMIN_PASSWORD,
  HttpLive,
  PlatformLive,
  seedDemo,
  ServicesLive
} from "@timebank/server"
import { Console, Effect, Layer, Option } from "effect"
import { createServer } from "node:http"

/** The demo community and its admin with a published password: for trying the API, never for production. */
const demoLines = (base: string) =>
  Effect.gen(function*() {
    const { admin, created, tenant } = yield* seedDemo()
    return [
      `demo tenant    slug "${tenant.slug}" (id ${tenant.id})${created ? " — seeded now" : ""}`,
      `try            curl -H 'X-Tenant-Slug: ${tenant.slug}' ${base}/api/v2/tenant`,
      `demo admin     ${DEMO_ADMIN_EMAIL} / ${DEMO_ADMIN_PASSWORD}${admin.created ? " — seeded now" : ""}`,
      `get a token    curl -X POST -H 'X-Tenant-Slug: ${tenant.slug}' -H 'Content-Type: application/json' ` +
      `-d '{"email":"${DEMO_ADMIN_EMAIL}","password":"${DEMO_ADMIN_PASSWORD}"}' ${base}/api/v2/auth/login`
    ]
  })

/** Seeds the demo community (unless SEED_DEMO=false), creates the bootstrap super-admin, and says where things are. */
const Banner = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const base = `http://localhost:${config.port}`
  const demo = config.seedDemo ? yield* demoLines(base) : ["demo tenant    not seeded (SEED_DEMO=false)"]
  const superAdmin = yield* bootstrapSuperAdmin
  yield* Console.log([
    "",
    `timebank API   ${base}/api/v2/health`,
    `docs           ${base}/api/docs`,
    `OpenAPI        ${base}/api/v2/openapi.json`,
    ...demo,
    ...Option.match(superAdmin, {
      onNone: () => [],
      onSome: (s) => [`super-admin    ${s.email} on tenant "platform"${s.created ? " — created now" : ""}`]
    }),
    ""
  ].join("\n"))
}))

const ServerLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) => NodeHttpServer.layer(createServer, { port: config.port, host: config.host }))
)

const MainLive = Layer.mergeAll(
  HttpLive.pipe(HttpServer.withLogAddress, Layer.provide(ServerLive)),
  ClusterFeaturesLive,
  Banner
).pipe(
  Layer.provide(ServicesLive),
  Layer.provide(PlatformLive)
)

Layer.launch(MainLive).pipe(NodeRuntime.runMain)
