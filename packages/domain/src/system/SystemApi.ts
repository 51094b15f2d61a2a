import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, httpError } from "../http/ApiError.js"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

export const CheckResult = Schema.Literal("ok", "failing", "not_configured")
export const Readiness = Schema.Struct({
  status: Schema.Literal("ok"),
  checks: Schema.Struct({
    database: CheckResult.annotations({ description: "`SELECT 1` answers within 2 s" }),
    redis: CheckResult.annotations({ description: "PING answers within 2 s; `not_configured` without REDIS_URL" }),
    runner: CheckResult.annotations({
      description: "This process's cluster runner is registered and healthy in `cluster_runners`"
    })
  })
})
export type Readiness = typeof Readiness.Type

/** A dependency the service needs (PostgreSQL, Redis when configured, its cluster runner) does not answer. */
export class NotReady extends ApiError<NotReady>()("NotReady", "SERVICE_UNAVAILABLE", 503) {}

export class SystemApi extends HttpApiGroup.make("system")
  .annotate(OpenApi.Title, "System")
  .annotate(OpenApi.Description, "Health probes for load balancers and orchestrators; no tenant or token needed")
  .add(
    HttpApiEndpoint.get("health", "/api/v2/health")
      .annotate(OpenApi.Summary, "Liveness probe")
      .addSuccess(HealthStatus)
      .annotate(OpenApi.Description, "Liveness. A tenant header is accepted but not required.")
  )
  .add(
    HttpApiEndpoint.get("live", "/api/v2/health/live")
      .annotate(OpenApi.Summary, "Liveness probe (explicit)")
      .addSuccess(HealthStatus)
      .annotate(OpenApi.Description, "Liveness: the process answers HTTP. Touches no dependency.")
  )
  .add(
    HttpApiEndpoint.get("ready", "/api/v2/health/ready")
      .annotate(OpenApi.Summary, "Readiness probe")
      .addSuccess(Readiness)
      .addError(httpError(NotReady))
      .annotate(
        OpenApi.Description,
        "Readiness: the database, Redis (when configured) and this process's cluster runner answer; 503 " +
          "`SERVICE_UNAVAILABLE` naming what fails otherwise. Each check times out after 2 s."
      )
  )
{}
