import { HttpServer } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import {
  AppConfig,
  bootstrapSuperAdmin,
  ClusterFeaturesLive,
  DEMO_ADMIN_EMAIL,
  DEMO_ADMIN_PASSWORD,
  EmbeddedPostgresError,
  EmbeddedPostgresRole,
  HttpLive,
  makeHttpServer,
  PlatformLive,
  printBanner,
  seedDemo,
  ServicesLive
} from "@timebank/server"
import { Cause, Console, Context, Data, Effect, Exit, Layer, Option } from "effect"

/** What the start-up seeding did, for the banner printed once the port is open. */
class Seeded extends Context.Tag("Seeded")<Seeded, ReadonlyArray<string>>() {}

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

/**
 * Seeds the demo community (unless SEED_DEMO=false) and creates the bootstrap super-admin. Everything that serves
 * HTTP is built after it, so the first answer on the port already finds them (a script may log in at once).
 */
const SeedLive = Layer.effect(
  Seeded,
  Effect.gen(function*() {
    const config = yield* AppConfig
    const base = `http://localhost:${config.port}`
    const demo = config.seedDemo ? yield* demoLines(base) : ["demo tenant    not seeded (SEED_DEMO=false)"]
    const superAdmin = yield* bootstrapSuperAdmin
    return [
      ...demo,
      ...Option.match(superAdmin, {
        onNone: () => [],
        onSome: (s) => [`super-admin    ${s.email} on tenant "platform"${s.created ? " — created now" : ""}`]
      })
    ]
  })
)

/** The port cannot be opened (a defect: `serve` has no error channel); reported as one line. */
class ListenFailed extends Data.TaggedError("ListenFailed")<{ readonly port: number; readonly error: unknown }> {
  get line() {
    const code = (this.error as { cause?: { code?: unknown } }).cause?.code
    const reason = code === "EADDRINUSE" ? "in use" : code === "EACCES" ? "not allowed" : String(code)
    return `cannot listen on port ${this.port} (${reason}): set PORT to another port`
  }
}

/**
 * Node's HTTP server, opened only when the app is handed to it: building the handlers takes a moment, and a
 * connection accepted before them would wait for nothing instead of being refused.
 */
const ServerLive = Layer.unwrapEffect(Effect.map(AppConfig, (config) =>
  Layer.merge(
    Layer.succeed(
      HttpServer.HttpServer,
      HttpServer.make({
        address: { _tag: "TcpAddress", hostname: config.host, port: config.port },
        serve: (app, middleware) =>
          NodeHttpServer.make(makeHttpServer, { port: config.port, host: config.host }).pipe(
            Effect.flatMap((server) => middleware === undefined ? server.serve(app) : server.serve(app, middleware)),
            Effect.catchTag("ServeError", (error) => Effect.die(new ListenFailed({ port: config.port, error })))
          )
      })
    ),
    NodeHttpServer.layerContext
  )))

/** Says where things are, once the port is open. */
const BannerLive = Layer.effectDiscard(Effect.gen(function*() {
  const config = yield* AppConfig
  const base = `http://localhost:${config.port}`
  yield* printBanner([
    "",
    `timebank API   ${base}/api/v2/health`,
    `docs           ${base}/api/docs`,
    `OpenAPI        ${base}/api/v2/openapi.json`,
    ...(yield* Seeded),
    ""
  ].join("\n"))
}))

// Built in order: platform (database migrated), services, cluster entities and seeding, HTTP, banner.
const MainLive = BannerLive.pipe(
  Layer.provide(HttpLive.pipe(HttpServer.withLogAddress, Layer.provide(ServerLive))),
  Layer.provide(Layer.merge(SeedLive, ClusterFeaturesLive)),
  Layer.provide(ServicesLive),
  Layer.provide(PlatformLive),
  // This process runs the embedded PostgreSQL (when DATABASE_URL is unset) and publishes its URL for the CLI.
  Layer.provide(Layer.succeed(EmbeddedPostgresRole, "serve"))
)

/**
 * A start that cannot happen for a reason the operator can fix (no embedded PostgreSQL here, the port taken) is
 * one line on stderr and exit status 1; anything else is reported in full.
 */
const startProblem = (cause: Cause.Cause<unknown>): Option.Option<string> => {
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && failure.value instanceof EmbeddedPostgresError) {
    return Option.some(failure.value.message)
  }
  return Option.flatMap(
    Cause.dieOption(cause),
    (defect) => defect instanceof ListenFailed ? Option.some(defect.line) : Option.none()
  )
}

// A closed terminal (SIGHUP) stops the service as Ctrl-C does, so an embedded PostgreSQL is stopped with it.
process.once("SIGHUP", () => process.kill(process.pid, "SIGTERM"))

Layer.launch(MainLive).pipe(
  Effect.catchAllCause((cause) =>
    Option.match(startProblem(cause), {
      onNone: () => Effect.failCause(cause),
      onSome: (line) => Effect.as(Console.error(`error: ${line}`), 1)
    })
  ),
  NodeRuntime.runMain({
    teardown: (exit, onExit) =>
      onExit(Exit.match(exit, {
        onSuccess: (code) => (typeof code === "number" ? code : 0),
        onFailure: (cause) => (Cause.isInterruptedOnly(cause) ? 0 : 1)
      }))
  })
)
