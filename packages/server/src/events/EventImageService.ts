import {
  ConfigAreas,
  CurrentTenant,
  DomainEvents,
  type EventId,
  type EventImage,
  type EventImageType,
  type ImagesConfig,
  ValidationFailed
} from "@timebank/domain"
import { type Cause, Effect, Option } from "effect"
import { FileStore, keyOfUrl, uploadKey } from "../platform/FileStore.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { TenantConfig } from "../tenancy/config/TenantConfig.js"
import { EventCoverRepo } from "./EventCoverRepo.js"
import { foundEvent } from "./EventLifecycle.js"
import { EventRepo } from "./EventRepo.js"
import { type EventRow, seriesRootOf } from "./EventRow.js"
import { EventEditor, requireEventEditor } from "./EventsPolicy.js"

/** An image as the client sent it: its bytes and the type it claimed. */
export interface ImageUpload {
  readonly bytes: Uint8Array
  readonly declaredType: string
}

const MiB = 1024 * 1024

/** What a community's `images` configuration (decisions D17) lets an upload be. */
export interface ImageLimits {
  readonly maxBytes: number
  readonly allowedTypes: ReadonlyArray<EventImageType>
}

export const imageLimitsOf = (config: ImagesConfig): ImageLimits => ({
  maxBytes: config.max_upload_mb * MiB,
  allowedTypes: config.allowed_types
})

/** Decisions D8's limits: what a community that never configured `images` allows. */
export const DEFAULT_IMAGE_LIMITS = imageLimitsOf(ConfigAreas.images.defaults)

/**
 * The body cap of a community's upload: twice its image limit, so that an image somewhat over the limit still
 * reaches the multipart parser and gets its 422 on field `image`; a larger body is 413 `PAYLOAD_TOO_LARGE`.
 */
export const uploadBodyCap = (limits: ImageLimits) => 2 * limits.maxBytes

export const tooLargeMessage = (limits: ImageLimits) => `must be at most ${limits.maxBytes / MiB} MB`

const TYPE_NAMES: Readonly<Record<EventImageType, string>> = {
  "image/jpeg": "JPEG",
  "image/png": "PNG",
  "image/webp": "WebP"
}

/** "a JPEG, PNG or WebP image" for the types allowed. */
const typesMessage = (types: ReadonlyArray<EventImageType>) => {
  const names = types.map((t) => TYPE_NAMES[t])
  const list = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}` : names[0]
  return `must be a ${list} image`
}

/** Reads the upload within the community's limits; a problem with it is a 422 on field `image`. */
export type ReadImage = (limits: ImageLimits) => Effect.Effect<ImageUpload, ValidationFailed>

/** 422 on field `image` (decisions D8). */
export const invalidImage = (message: string) => ValidationFailed.field("image", message)

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0) =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0))

/** The image type the first bytes show (JPEG SOI marker, PNG signature, RIFF....WEBP), if it is one we take. */
export const sniffImageType = (bytes: Uint8Array): EventImageType | undefined => {
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, ascii("RIFF")) && startsWith(bytes, ascii("WEBP"), 8)) return "image/webp"
  return undefined
}

const DECLARED_ALIASES: Readonly<Record<string, string>> = { "image/jpg": "image/jpeg", "image/pjpeg": "image/jpeg" }

/**
 * The type to store the image as, or why it is refused. The content decides; a declared image type that names
 * another format (a GIF sent as `image/gif`, a PNG labelled `image/webp`) is refused too, since the client meant
 * something we would not store as such. Generic declarations (`application/octet-stream`) are fine.
 */
export const checkImage = (
  image: ImageUpload,
  limits: ImageLimits = DEFAULT_IMAGE_LIMITS
): { readonly type: EventImageType } | { readonly problem: string } => {
  if (image.bytes.length === 0) return { problem: "is empty" }
  if (image.bytes.length > limits.maxBytes) return { problem: tooLargeMessage(limits) }
  const type = sniffImageType(image.bytes)
  if (type === undefined || !limits.allowedTypes.includes(type)) return { problem: typesMessage(limits.allowedTypes) }
  const declared = image.declaredType.split(";")[0]!.trim().toLowerCase()
  const named = DECLARED_ALIASES[declared] ?? declared
  if (named.startsWith("image/") && named !== type) {
    return { problem: `is declared as ${declared} but its content is ${type}` }
  }
  return { type }
}

/**
 * Event cover images (decisions D8), stored through the FileStore; the contract gates the route on `events`. Size
 * and types follow the community's `images` configuration (TenantConfig, one per process from ServicesLive).
 */
export class EventImageService extends Effect.Service<EventImageService>()("EventImageService", {
  dependencies: [EventRepo.Default, EventCoverRepo.Default, FileStore.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const covers = yield* EventCoverRepo
    const store = yield* FileStore
    const outbox = yield* Outbox
    const events = yield* EventRepo
    const config = yield* TenantConfig

    /** Logs a failed clean-up: a file left behind costs disk space, never the request. */
    const logCleanupFailure = (what: string, keys: ReadonlyArray<string>) => (cause: Cause.Cause<unknown>) =>
      Effect.logWarning(`event cover image: ${what} not deleted`, cause).pipe(
        Effect.annotateLogs({ keys: keys.join(",") })
      )

    /**
     * After the new cover is committed: deletes the files of the covers it replaced, unless an event still shows
     * them (a detached occurrence, say). Cover URLs that are not our uploads are left alone.
     */
    const deleteReplaced = (previous: ReadonlyArray<string>, current: string) =>
      Effect.gen(function*() {
        const replaced = previous.filter((url) => url !== current)
        if (replaced.length === 0) return
        const inUse = yield* covers.inUse(replaced)
        const keys = replaced.filter((url) => !inUse.has(url)).flatMap((url) => Option.toArray(keyOfUrl(url)))
        for (const key of keys) {
          yield* store.remove(key).pipe(Effect.catchAllCause(logCleanupFailure("replaced cover", [key])))
        }
      }).pipe(
        Effect.catchAllCause(logCleanupFailure("replaced cover", previous)),
        // The change is committed: finish the clean-up even when the client has gone away meanwhile.
        Effect.uninterruptible,
        Effect.withSpan("Events.deleteReplacedCovers")
      )

    const replaceCover = (event: EventRow, readImage: ReadImage) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const tenant = yield* CurrentTenant
        const limits = imageLimitsOf(yield* config.get(tenant.id, "images"))
        const image = yield* readImage(limits)
        const checked = checkImage(image, limits)
        if ("problem" in checked) return yield* invalidImage(checked.problem)
        const key = uploadKey(["events", tenant.id, event.id], checked.type)
        const url = yield* store.put(key, image.bytes, checked.type)
        const { eventIds, previous } = yield* db.transaction(Effect.gen(function*() {
          const previous = yield* covers.ofSeries(seriesRootOf(event))
          const eventIds = yield* covers.set(seriesRootOf(event), url)
          yield* outbox.append(
            new DomainEvents.CommunityEventUpdated({
              event_id: event.id,
              user_id: event.user_id,
              title: event.title,
              // `changed` names what attendees are told about (title, times, place); a new cover is not one of them.
              changed: [],
              fields: ["cover_image"],
              cover_image: url,
              event_ids: eventIds,
              updated_by: editor.userId
            })
          )
          return { eventIds, previous }
        })).pipe(
          // Nothing refers to the new file when the change did not commit.
          Effect.onError(() => store.remove(key).pipe(Effect.catchAllCause(logCleanupFailure("unused upload", [key]))))
        )
        yield* deleteReplaced(previous, url)
        yield* Effect.annotateCurrentSpan({ event_ids: eventIds.join(","), bytes: image.bytes.length })
        return { id: event.id as EventId, cover_image: url } satisfies EventImage
      })

    /**
     * Stores a new cover image for an event. The event and the caller's right to change it are checked before
     * `readImage` reads the upload, within the community's limits, so a refused caller's body is never parsed.
     */
    const upload = Effect.fn("Events.uploadImage")(
      function*(id: EventId, readImage: ReadImage) {
        const event = yield* foundEvent(events.findById(id))
        return yield* requireEventEditor(event)(replaceCover(event, readImage))
      }
    )

    return { upload } as const
  })
}) {}
