import { Etag, FileSystem, HttpApiBuilder, HttpPlatform, HttpServer, Path } from "@effect/platform"
import { Context, Effect, Layer, Scope } from "effect"

/** What a request fiber takes from the process: the platform's services (files, ETags) and the server's scope. */
const REQUEST_SERVICES = [
  HttpPlatform.HttpPlatform,
  Etag.Generator,
  FileSystem.FileSystem,
  Path.Path,
  Scope.Scope
] as const
type RequestServices = Context.Tag.Identifier<(typeof REQUEST_SERVICES)[number]>

/**
 * `HttpApiBuilder.serve()`, except that request fibers start from the platform's services alone instead of every
 * service of the process. The stack copies a request's context several times (the request, its scope, the route,
 * each middleware's service, the handler group's own context), and copying costs about 0.1 µs per entry here: with
 * the ~40 services of the process that was ~10 µs of every request. Handlers lose nothing: a handler group and a
 * middleware take their services when they are built, and the HttpApi's types hold what a request needs at run time
 * to the platform's services (`HttpRouter.DefaultServices`). One path the types do not cover: a global middleware
 * (`HttpApiBuilder.middleware`) runs in the request's context, so it takes its services when it is built
 * (`Effect.map(SqlClient.SqlClient, (sql) => (app) => …)`, as `auditTrail` does), never per request.
 */
export const leanServe = () =>
  Layer.unwrapEffect(Effect.map(HttpApiBuilder.httpApp, (app) =>
    Layer.scopedDiscard(Effect.gen(function*() {
      const server = yield* HttpServer.HttpServer
      yield* Effect.mapInputContext(server.serve(app), (context: Context.Context<RequestServices>) =>
        Context.pick(...REQUEST_SERVICES)(context))
    })))).pipe(Layer.provide([HttpApiBuilder.Router.Live, HttpApiBuilder.Middleware.layer]))
