import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { ApiError, httpError } from "../http/ApiError.js"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

export const CheckResult = Schema.Literal("ok", "failing", "not_configured")
export const Readiness = Schema.Struct({
  status: Schema.Literal("ok"),
  checks: Schema.Struct({ database: CheckResult, redis: CheckResult })
})
export type Readiness = typeof Readiness.Type

/** A dependency the service needs (PostgreSQL, Redis when configured) does not answer. */
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
    HttpApiEndpoint.get("ready", "/api/v2/health/ready")
      .annotate(OpenApi.Summary, "Readiness probe")
      .addSuccess(Readiness)
      .addError(httpError(NotReady))
      .annotate(OpenApi.Description, "Readiness: the database (and Redis, when configured) answer.")
  )
{}
