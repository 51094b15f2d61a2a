// Baseline: the least an HttpApi server of our Effect versions does for the health route — one endpoint, no
// middleware, NodeHttpServer — so the health bench can say what our edge costs on top of the stack itself. Like our
// API without OTEL_EXPORTER_OTLP_ENDPOINT, it makes no server span per request (BENCH_MINIMAL_SPANS=on keeps the
// stack's default span, which costs it a good part of its throughput).
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup, HttpMiddleware } from "@effect/platform"
import { NodeHttpServer, NodeRuntime } from "@effect/platform-node"
import { Effect, Layer, Schema } from "effect"
import { createServer } from "node:http"

const Health = Schema.Struct({ status: Schema.Literal("ok") })

const MinimalApi = HttpApi.make("minimal").add(
  HttpApiGroup.make("system").add(HttpApiEndpoint.get("health", "/api/v2/health").addSuccess(Health))
)

const SystemLive = HttpApiBuilder.group(
  MinimalApi,
  "system",
  (handlers) => handlers.handle("health", () => Effect.succeed({ status: "ok" as const }))
)

const spans = process.env.BENCH_MINIMAL_SPANS === "on"

const ServerLive = HttpApiBuilder.serve().pipe(
  HttpMiddleware.withTracerDisabledWhen(() => !spans),
  Layer.provide(HttpApiBuilder.api(MinimalApi).pipe(Layer.provide(SystemLive))),
  Layer.provide(NodeHttpServer.layer(createServer, { port: Number(process.env.PORT), host: "127.0.0.1" }))
)

NodeRuntime.runMain(Layer.launch(ServerLive))
