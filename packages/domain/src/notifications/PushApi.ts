import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Either, Encoding, Schema } from "effect"
import { FeatureDisabled, httpError } from "../http/ApiError.js"
import { DataEnvelope } from "../http/Envelope.js"
import { RecordId } from "../http/Ids.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

export const PushSubscriptionId = RecordId.pipe(Schema.brand("PushSubscriptionId"))
export type PushSubscriptionId = typeof PushSubscriptionId.Type

export const PushKind = Schema.Literal("web", "fcm", "apns")
export type PushKind = typeof PushKind.Type

/** Longest endpoint URL or device token kept (browsers' endpoints are a few hundred characters). */
export const PUSH_ENDPOINT_MAX = 2048

const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/

/** base64url text whose bytes number exactly `bytes` (the P-256 point, the auth secret). */
const base64UrlKey = (bytes: number, what: string) =>
  Schema.String.pipe(
    Schema.maxLength(256),
    Schema.filter((s) => {
      if (!BASE64URL.test(s)) return "must be base64url"
      const decoded = Encoding.decodeBase64Url(s.replace(/=+$/, ""))
      return Either.isRight(decoded) && decoded.right.length === bytes || `must be ${what} (${bytes} bytes)`
    })
  ).annotations({ description: `${what}, base64url (${bytes} bytes)` })

const isHttpUrl = (s: string) => {
  try {
    const url = new URL(s)
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== ""
  } catch {
    return false
  }
}

export const PushEndpoint = Schema.String.pipe(
  Schema.maxLength(PUSH_ENDPOINT_MAX),
  Schema.filter((s) => isHttpUrl(s) || "must be an https or http URL")
).annotations({ description: "The browser's push service URL; the push is sent to it exactly as given" })

/** An FCM registration token or an APNs device token (hex). */
export const DeviceToken = Schema.String.pipe(
  Schema.minLength(8),
  Schema.maxLength(PUSH_ENDPOINT_MAX),
  Schema.pattern(/^[A-Za-z0-9_:.-]+$/, { message: () => "must be a device token (letters, digits, _ : . -)" })
)

export const PushKeys = Schema.Struct({
  p256dh: base64UrlKey(65, "the subscription's P-256 public key"),
  auth: base64UrlKey(16, "the subscription's auth secret")
})

/**
 * Web `{"endpoint", "keys": {"p256dh", "auth"}}` or mobile `{"platform": "fcm"|"apns", "token"}` (decisions D9).
 * One object with every field optional, so that a bad field is reported by its own name rather than as a mismatch
 * of both shapes.
 */
export const PushSubscribe = Schema.Struct({
  endpoint: Schema.optional(PushEndpoint),
  keys: Schema.optional(PushKeys),
  platform: Schema.optional(Schema.Literal("fcm", "apns")),
  token: Schema.optional(DeviceToken)
}).pipe(
  Schema.filter((s) => {
    const web = s.endpoint !== undefined || s.keys !== undefined
    const mobile = s.platform !== undefined || s.token !== undefined
    if (web && mobile) return { path: ["endpoint"], message: "send either endpoint and keys, or platform and token" }
    if (mobile) {
      if (s.platform === undefined) return { path: ["platform"], message: "is required with token" }
      if (s.token === undefined) return { path: ["token"], message: "is required with platform" }
      if (s.platform === "apns" && !/^[0-9A-Fa-f]{64,200}$/.test(s.token)) {
        return { path: ["token"], message: "must be an APNs device token (hexadecimal)" }
      }
      return true
    }
    if (s.endpoint === undefined) return { path: ["endpoint"], message: "is required" }
    if (s.keys === undefined) return { path: ["keys"], message: "is required with endpoint" }
    return true
  })
)
export type PushSubscribe = typeof PushSubscribe.Type

/** `{"endpoint"}` (web) or `{"token"}` (mobile): the caller's subscriptions with it are removed. */
export const PushUnsubscribe = Schema.Struct({
  endpoint: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(PUSH_ENDPOINT_MAX))),
  token: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(PUSH_ENDPOINT_MAX)))
}).pipe(
  Schema.filter((s) =>
    (s.endpoint === undefined) !== (s.token === undefined) || {
      path: [s.endpoint === undefined ? "endpoint" : "token"],
      message: "send exactly one of endpoint and token"
    }
  )
)
export type PushUnsubscribe = typeof PushUnsubscribe.Type

export const VapidKey = Schema.Struct({
  public_key: Schema.NullOr(Schema.String).annotations({
    description: "The VAPID application server key (base64url) for `pushManager.subscribe`; null when web push is off"
  })
})
export const PushSubscribed = Schema.Struct({ id: PushSubscriptionId, kind: PushKind })
export const PushRemoved = Schema.Struct({ removed: Schema.Int })
export const PushStatus = Schema.Struct({
  web: Schema.Int.annotations({ description: "The caller's browser subscriptions" }),
  mobile: Schema.Int.annotations({ description: "The caller's FCM and APNs device tokens" }),
  vapid_configured: Schema.Boolean
})

/** The push routes under one prefix; the same group is served under `/api/push` and `/api/v2/push` (D9). */
const pushGroup = <const Name extends string>(name: Name, prefix: `/${string}`) =>
  HttpApiGroup.make(name)
    .annotate(OpenApi.Title, prefix === "/api/push" ? "Push" : "Push (v2 paths)")
    .annotate(OpenApi.Description, "Browser (VAPID) and mobile (FCM, APNs) push subscriptions of the caller")
    .add(
      HttpApiEndpoint.post("subscribe", `${prefix}/subscribe`)
        .annotate(OpenApi.Summary, "Subscribe to push")
        .annotate(
          OpenApi.Description,
          "Registers a browser subscription or a device token: 201 when new, 200 when the caller already had it; " +
            "403 `FEATURE_DISABLED` while the community has the `push` module off"
        )
        .setPayload(PushSubscribe)
        .addSuccess(DataEnvelope(PushSubscribed), { status: 201 })
        .addError(httpError(FeatureDisabled))
        .addSuccess(
          DataEnvelope(PushSubscribed).annotations({ description: "The caller already had this subscription" }),
          { status: 200 }
        )
    )
    .add(
      HttpApiEndpoint.post("unsubscribe", `${prefix}/unsubscribe`)
        .annotate(OpenApi.Summary, "Unsubscribe from push")
        .annotate(OpenApi.Description, "Removes the caller's subscriptions with this endpoint or token (0 if none)")
        .setPayload(PushUnsubscribe)
        .addSuccess(DataEnvelope(PushRemoved))
    )
    .add(
      HttpApiEndpoint.get("status", `${prefix}/status`)
        .annotate(OpenApi.Summary, "My push status")
        .annotate(
          OpenApi.Description,
          "How many browsers and devices the caller subscribed, and whether web push is on"
        )
        .addSuccess(DataEnvelope(PushStatus))
    )
    .middlewareEndpoints(Authentication)
    // Added last, so it runs first: the tenant is resolved before the caller.
    .middlewareEndpoints(TenantMiddleware)
    // The key belongs to the deployment, not to a community: a service worker may fetch it before it knows one.
    .add(
      HttpApiEndpoint.get("vapidKey", `${prefix}/vapid-key`)
        .annotate(OpenApi.Summary, "VAPID public key")
        .annotate(OpenApi.Description, "No login and no community needed; null when web push is not configured")
        .addSuccess(DataEnvelope(VapidKey))
    )

export class PushApi extends pushGroup("push", "/api/push") {}
export class PushV2Api extends pushGroup("pushV2", "/api/v2/push") {}
