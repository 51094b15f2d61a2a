import { RateLimiter } from "@effect/experimental"
import { type HttpApiMiddleware, HttpServerRequest } from "@effect/platform"
import {
  EventsRead,
  type FederationAccessFailure,
  type FederationAccessPolicy,
  type FederationCallerShape,
  FederationDisabled,
  GroupsRead,
  ListingsRead,
  MembersRead,
  MessagesWrite,
  OpportunitiesRead,
  PermissionDenied,
  RateLimited,
  ReviewsRead,
  ReviewsWrite,
  TenantMismatch,
  TransactionsRead,
  TransactionsWrite,
  WebhooksSigned
} from "@timebank/domain"
import { Clock, type Context, Duration, Effect, Layer, Option } from "effect"
import { AppConfig } from "../../platform/AppConfig.js"
import { clientIp } from "../../platform/ClientIp.js"
import { RATE_LIMIT_STORE_TIMEOUT, rateLimitHeaders } from "../../platform/RateLimit.js"
import { setResponseHeaders, setRetryAfter } from "../../platform/ResponseHeaders.js"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { ApiKeyStore } from "../keys/ApiKeyStore.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { authenticate } from "./FederationCredentials.js"
import { minuteWindow, permissionRefusal, switchesRefuse, tenantHeaderDisagrees } from "./FederationGate.js"
import { FederationTokens } from "./FederationTokens.js"
import { NonceStore } from "./NonceStore.js"

/** `Retry-After` of a refused federation request (decisions D13). */
export const FEDERATION_RETRY_AFTER_SECONDS = 3600

/** The spec's per-IP limit of federation reads ("config and federation reads": 60 per minute per IP). */
export const FEDERATION_READS_PER_IP_PER_MINUTE = 60

/** 503 `FEDERATION_DISABLED` with `Retry-After: 3600`; the message never says which switch (D13). */
export const federationDisabled = Effect.zipRight(
  setRetryAfter(FEDERATION_RETRY_AFTER_SECONDS),
  Effect.fail(new FederationDisabled({ message: "Federation is not available for this request" }))
)

/** How often one process notes a key's use (`last_used_at` for the admin list): a write per request is too many. */
const TOUCH_EVERY_MILLIS = 60_000

type FederationAccessTagLike<I> =
  & Context.Tag<I, HttpApiMiddleware.HttpApiMiddleware<FederationCallerShape, typeof FederationAccessFailure.Type>>
  & { readonly access: FederationAccessPolicy }

/**
 * The middleware of a federation access tag declared in the contract (`FederationAccess` in the domain; the tags
 * are in `FederationPolicies`). In decisions D13a's order: platform switch (503) → credentials (401 / 409 replay)
 * → tenant from the key (403 `TENANT_MISMATCH`) → whitelist (503; a suspended community counts as not
 * whitelisted) → the route's toggle (503) → scope and partner (403 `PERMISSION_DENIED`) → per-key rate limit (429,
 * with `X-RateLimit-*`) and, for reads, the per-IP limit (429, no headers). Provides `FederationCaller`.
 */
export const federationAccessLayer = <I>(tag: FederationAccessTagLike<I>) =>
  Layer.effect(tag, Effect.map(federationGate(tag.access), (gate) => gate.check()))

/**
 * The gate's steps for one policy, for middlewares that add their own around them (Komunitin's `{CODE}` routes,
 * `komunitin/KomunitinAccessLive.ts`): `check(named)` runs them all, `named` finding the community a route names
 * itself once the credentials hold (its failure, such as an unknown code's 404, is the answer; a key of another
 * community → 403 `TENANT_MISMATCH`, as for a disagreeing tenant header); `perMinuteLimit` is the per-key limit's
 * fixed window for another counter.
 */
export const federationGate = (policy: FederationAccessPolicy) =>
  Effect.gen(function*() {
    const switches = yield* FederationSwitches
    const tenants = yield* TenantDirectory
    const limiter = yield* RateLimiter.RateLimiter
    const { trustProxy } = yield* AppConfig
    const keys = yield* ApiKeyStore
    const context = yield* Effect.context<ApiKeyStore | FederationTokens | NonceStore>()
    const touched = new Map<number, number>()

    const touch = (keyId: number) =>
      Effect.suspend(() => {
        const now = Date.now()
        if (now - (touched.get(keyId) ?? 0) < TOUCH_EVERY_MILLIS) return Effect.void
        if (touched.size > 10_000) touched.clear()
        touched.set(keyId, now)
        return Effect.asVoid(Effect.forkDaemon(keys.touch(keyId)))
      })

    /** `counter`: `key:<id>` for an API key. */
    const perMinuteLimit = (counter: string, limit: number) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        const window = minuteWindow(now)
        // A fresh counter per key and minute. The store lets each token live window / limit; a window of
        // `limit` minutes makes that one minute (whole milliseconds for every limit), so the counter outlives
        // its minute and the minute in the key ends it.
        const outcome = yield* limiter.consume({
          key: `federation-${counter}:${window.index}`,
          limit,
          window: Duration.minutes(limit),
          algorithm: "fixed-window",
          onExceeded: "fail"
        }).pipe(Effect.timeout(RATE_LIMIT_STORE_TIMEOUT), Effect.either)
        if (outcome._tag === "Right") {
          return yield* setResponseHeaders(rateLimitHeaders(limit, outcome.right.remaining, window.endsAtMillis))
        }
        const error = outcome.left
        if (error._tag === "RateLimiterError" && error.reason === "Exceeded") {
          const seconds = Math.max(1, Math.ceil((window.endsAtMillis - now) / 1000))
          yield* setResponseHeaders(rateLimitHeaders(limit, 0, window.endsAtMillis))
          yield* setRetryAfter(seconds)
          return yield* new RateLimited({ message: `This key's limit is reached; try again in ${seconds} s` })
        }
        yield* Effect.logWarning("rate limit store unavailable; federation request let through", error)
      })

    const perIpReadLimit = Effect.gen(function*() {
      const ip = yield* clientIp(trustProxy)
      const outcome = yield* limiter.consume({
        key: `federation-read:${ip}`,
        limit: FEDERATION_READS_PER_IP_PER_MINUTE,
        window: "1 minute",
        algorithm: "fixed-window",
        onExceeded: "fail"
      }).pipe(Effect.timeout(RATE_LIMIT_STORE_TIMEOUT), Effect.either)
      if (outcome._tag === "Right") return
      const error = outcome.left
      if (error._tag === "RateLimiterError" && error.reason === "Exceeded") {
        const seconds = Math.max(1, Math.ceil(Duration.toMillis(error.retryAfter) / 1000))
        yield* setRetryAfter(seconds)
        return yield* new RateLimited({ message: `Too many federation reads; try again in ${seconds} s` })
      }
      yield* Effect.logWarning("rate limit store unavailable; federation read let through", error)
    })

    const check = <E = never>(named?: Effect.Effect<{ readonly id: number }, E>) =>
      Effect.gen(function*() {
        if (!(yield* switches.platformEnabled)) return yield* federationDisabled
        const { key, method, scopes } = yield* authenticate(policy).pipe(Effect.provide(context))
        const request = yield* HttpServerRequest.HttpServerRequest
        const tenant = yield* tenants.find({ _tag: "Id", id: String(key.tenantId) })
        if (Option.isNone(tenant)) return yield* federationDisabled
        if (tenantHeaderDisagrees(request.headers, tenant.value)) {
          return yield* new TenantMismatch({ message: "The tenant header names another community than the key's" })
        }
        if (named !== undefined && (yield* named).id !== tenant.value.id) {
          return yield* new TenantMismatch({ message: "The key belongs to another community than the one named" })
        }
        const settings = yield* switches.tenant(key.tenantId)
        // A community with the `reviews` module off (decisions D17) neither shares nor takes reviews.
        const toggles = tenant.value.isModuleOn("reviews") ? settings.toggles : { ...settings.toggles, reviews: false }
        if (switchesRefuse(policy, { active: tenant.value.status === "active", ...settings, toggles }) !== undefined) {
          return yield* federationDisabled
        }
        const refusal = permissionRefusal(policy, { scopes, partnerStatus: key.partnerStatus })
        if (refusal !== undefined) return yield* new PermissionDenied({ message: refusal })
        yield* perMinuteLimit(`key:${key.id}`, key.rateLimitPerMinute)
        if (request.method === "GET") yield* perIpReadLimit
        yield* touch(key.id)
        return { keyId: key.id, tenant: tenant.value, partnerId: key.partnerId, scopes, method } as const
      })
    return { check, perMinuteLimit, perIpReadLimit } as const
  })

/** The gate of every federation policy the contract declares (`FederationPolicies`), with what it needs. */
export const FederationAccessLive = Layer.mergeAll(
  federationAccessLayer(ListingsRead),
  federationAccessLayer(OpportunitiesRead),
  federationAccessLayer(MembersRead),
  federationAccessLayer(EventsRead),
  federationAccessLayer(GroupsRead),
  federationAccessLayer(ReviewsRead),
  federationAccessLayer(ReviewsWrite),
  federationAccessLayer(MessagesWrite),
  federationAccessLayer(TransactionsRead),
  federationAccessLayer(TransactionsWrite),
  federationAccessLayer(WebhooksSigned)
).pipe(
  // SECRETS_KEY that does not parse is a deployment error: the process must not start.
  Layer.provide(
    Layer.mergeAll(ApiKeyStore.Default, FederationSwitches.Default, FederationTokens.Default, NonceStore.Default).pipe(
      Layer.orDie
    )
  )
)
