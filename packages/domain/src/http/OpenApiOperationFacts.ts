import { HttpApi, HttpApiMiddleware, OpenApi } from "@effect/platform"
import { Context } from "effect"
import { CurrentTenant } from "../tenancy/Tenant.js"
import type { Codes, Operation } from "./OpenApiJson.js"
import type { RateLimitPolicy } from "./RateLimit.js"

/** What the contract says about an operation: whether it needs a tenant, a caller, and its rate limits. */
export interface OperationFacts {
  readonly tenant: boolean
  readonly auth: "required" | "optional" | "none"
  /** A partner route of `/api/v1/federation/*`: an API key, a signature or a federation JWT, no tenant header. */
  readonly federation?: boolean
  readonly rateLimits: ReadonlyArray<RateLimitPolicy>
}

/** The facts of every operation of the contract, by operation id, read from the middleware it runs behind. */
export const operationFacts = (api: HttpApi.HttpApi.AnyWithProps): ReadonlyMap<string, OperationFacts> => {
  const facts = new Map<string, OperationFacts>()
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, group, middleware }) => {
      const id = Context.getOrElse(
        endpoint.annotations,
        OpenApi.Identifier,
        () => group.topLevel ? endpoint.name : `${group.identifier}.${endpoint.name}`
      )
      facts.set(id, middlewareFacts([...middleware]))
    }
  })
  return facts
}

const middlewareFacts = (middleware: ReadonlyArray<HttpApiMiddleware.TagClassAny>): OperationFacts => {
  const security = middleware.filter(HttpApiMiddleware.isSecurity)
  // The federation gate names its caller by tag key: the contract's http code does not import the federation.
  const federation = middleware.some((m) => m.provides?.key === "FederationCaller")
  return {
    tenant: middleware.some((m) => m.provides === CurrentTenant),
    auth: federation
      ? "required"
      : security.length === 0
      ? "none"
      : security.every((m) => m.optional)
      ? "optional"
      : "required",
    federation,
    rateLimits: middleware.flatMap((m) => "policy" in m ? [m.policy as RateLimitPolicy] : [])
  }
}

/** For routes the contract did not have when it was annotated: the tenant and caller their errors reveal. */
export const inferredFacts = (op: Operation, codes: Codes): OperationFacts => ({
  tenant: codes.get(400)?.has("tenant_required") ?? false,
  auth: op.security.length === 0 ? "none" : codes.get(401)?.has("AUTH_REQUIRED") ? "required" : "optional",
  rateLimits: []
})
