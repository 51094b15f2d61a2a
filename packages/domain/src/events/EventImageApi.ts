import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, Multipart, OpenApi } from "@effect/platform"
import { Option, Schema } from "effect"
import { Forbidden, httpError, NotFound, RateLimited } from "../http/ApiError.js"
import { MaxBodyBytes } from "../http/BodyLimit.js"
import { DataEnvelope } from "../http/Envelope.js"
import { EventsFeature } from "../http/FeatureGate.js"
import { RateLimit } from "../http/RateLimit.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { EventId, EventIdPath } from "./Event.js"

/** Decisions D8: cover images up to 5 MB (5 MiB). */
export const EVENT_IMAGE_MAX_BYTES = 5 * 1024 * 1024

/**
 * The body cap of the upload route at the edge: twice the largest image a community may allow (`images`
 * `max_upload_mb` ≤ 20, decisions D17), bodies beyond it refused (413) unread. Each community's own cap, twice its
 * limit (10 MiB by default), is applied by the route, so that an image somewhat over the limit still reaches the
 * multipart parser and gets its 422 on field `image`.
 */
export const EVENT_IMAGE_MAX_BODY_BYTES = 2 * 20 * 1024 * 1024

/** Decisions D8: JPEG, PNG or WebP, recognised by their first bytes. */
export const EVENT_IMAGE_TYPES = ["image/jpeg", "image/png", "image/webp"] as const
export type EventImageType = typeof EVENT_IMAGE_TYPES[number]

/** Spec "Limits": event image upload, 20 per 60 seconds (per IP, decisions D10). */
export class EventImageRateLimit extends RateLimit<EventImageRateLimit>()("EventImageRateLimit", {
  limit: 20,
  window: "1 minute",
  scope: "ip"
}) {}

/** How the upload's multipart body is read: one file of at most 5 MB, a few small parts beside it. */
export const EVENT_IMAGE_MULTIPART_LIMITS = {
  maxFileSize: Option.some(EVENT_IMAGE_MAX_BYTES),
  maxParts: Option.some(8),
  maxFieldSize: 64 * 1024,
  // Every part with a file name is a file, whatever type it declares.
  fieldMimeTypes: []
} as const

export const EventImageUpload = HttpApiSchema.Multipart(
  Schema.Struct({
    image: Multipart.SingleFileSchema.annotations({
      description: "JPEG, PNG or WebP (those the community allows), at most 5 MB unless the community allows " +
        "more (`images.max_upload_mb`); the type is checked from the file's content"
    })
  }),
  EVENT_IMAGE_MULTIPART_LIMITS
)

/** The event's new cover image. */
export const EventImage = Schema.Struct({
  id: EventId,
  cover_image: Schema.String.annotations({
    description: "URL path of the stored image (`/uploads/...`), served with the image's content type"
  })
})
export type EventImage = typeof EventImage.Type

/** Cover images of events (decisions D8); answers 403 `FEATURE_DISABLED` when `events` is off. */
export class EventImageApi extends HttpApiGroup.make("eventImages")
  .annotate(OpenApi.Title, "Events: images")
  .annotate(OpenApi.Description, "Cover images of events (JPEG, PNG or WebP, at most 5 MB)")
  .add(
    HttpApiEndpoint.post("upload", "/api/v2/events/:id/image")
      .annotate(OpenApi.Summary, "Upload an event's cover image")
      .setPath(EventIdPath)
      .setPayload(EventImageUpload)
      .addSuccess(DataEnvelope(EventImage))
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(RateLimited))
      // Endpoint middleware runs last-added first: tenant, then the caller, then the rate limit.
      .middleware(EventImageRateLimit)
      .middleware(Authentication)
      .annotate(MaxBodyBytes, EVENT_IMAGE_MAX_BODY_BYTES)
      .annotate(
        OpenApi.Description,
        "The organiser or a community admin sets the event's `cover_image` (multipart, file field `image`). " +
          "For a recurring series the image goes to the template and every occurrence. A missing, unknown or " +
          "too large image, or a type the community does not allow, is a 422 on field `image`; a body over twice " +
          "the community's `images.max_upload_mb` is 413."
      )
  )
  .middleware(EventsFeature)
  // Per endpoint and last, so that it wraps each endpoint's own middleware: the tenant is always resolved first.
  .middlewareEndpoints(TenantMiddleware)
{}
