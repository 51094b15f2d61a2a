import { HttpApiMiddleware } from "@effect/platform"
import { Duration } from "effect"
import { httpError, RateLimited } from "./ApiError.js"

/** How many requests one caller may make in a window (decisions D10). Only per-IP limits exist so far. */
export interface RateLimitPolicy {
  readonly limit: number
  readonly window: Duration.DurationInput
  readonly scope: "ip"
}

type RateLimitOptions = { readonly failure: ReturnType<typeof httpError<RateLimited>> }

/** A middleware tag made by {@link RateLimit}: the policy travels with the contract. */
export type RateLimitTag<Self, Name extends string> =
  & HttpApiMiddleware.TagClass<Self, Name, RateLimitOptions>
  & { readonly policy: RateLimitPolicy }

/**
 * A rate limit declared in the contract, as a middleware of the endpoints it guards:
 *
 *   export class LoginRateLimit extends RateLimit<LoginRateLimit>()("LoginRateLimit", {
 *     limit: 30, window: "1 minute", scope: "ip"
 *   }) {}
 *   HttpApiEndpoint.post("login", "/api/v2/auth/login").middleware(LoginRateLimit)
 *
 * Past the limit the endpoint answers 429 `RATE_LIMITED` with `Retry-After`. The server builds the middleware from
 * the tag (`rateLimitLayer(LoginRateLimit)` in `HttpLive`); the tag's name is part of the counter's key, so
 * endpoints that share a tag share one budget. A whole group can use it too (`.middleware(Limit)` before
 * `.middleware(TenantMiddleware)`: the middleware added last runs first, so the tenant is still resolved first).
 */
export const RateLimit =
  <Self>() => <const Name extends string>(name: Name, policy: RateLimitPolicy): RateLimitTag<Self, Name> => {
    const windowMillis = Duration.toMillis(policy.window)
    if (!Number.isSafeInteger(policy.limit) || policy.limit < 1) {
      throw new Error(`RateLimit ${name}: limit must be a positive integer`)
    }
    // The Redis store keeps window / limit milliseconds per request and refuses fractions ("value is not an
    // integer"); refusing such a policy here makes the mistake show up at start instead of on the first request.
    if (!Number.isSafeInteger(windowMillis) || windowMillis % policy.limit !== 0) {
      throw new Error(`RateLimit ${name}: the window (${windowMillis} ms) must be a whole multiple of the limit`)
    }
    const Tag = HttpApiMiddleware.Tag<Self>()(name, { failure: httpError(RateLimited) })
    return Object.assign(Tag, { policy }) as RateLimitTag<Self, Name>
  }
