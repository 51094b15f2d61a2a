import {
  CurrentTenant,
  DomainEvents,
  EVENT_IMAGE_MAX_BYTES,
  type EventId,
  type EventImage,
  type EventImageType,
  ValidationFailed
} from "@timebank/domain"
import { type Cause, Effect, Option } from "effect"
import { FileStore, keyOfUrl, uploadKey } from "../platform/FileStore.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
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
export const checkImage = (image: ImageUpload): { readonly type: EventImageType } | { readonly problem: string } => {
  if (image.bytes.length === 0) return { problem: "is empty" }
  if (image.bytes.length > EVENT_IMAGE_MAX_BYTES) return { problem: "must be at most 5 MB" }
  const type = sniffImageType(image.bytes)
  if (type === undefined) return { problem: "must be a JPEG, PNG or WebP image" }
  const declared = image.declaredType.split(";")[0]!.trim().toLowerCase()
  const named = DECLARED_ALIASES[declared] ?? declared
  if (named.startsWith("image/") && named !== type) {
    return { problem: `is declared as ${declared} but its content is ${type}` }
  }
  return { type }
}

/** Event cover images (decisions D8), stored through the FileStore; the contract gates the route on `events`. */
export class EventImageService extends Effect.Service<EventImageService>()("EventImageService", {
  dependencies: [EventRepo.Default, EventCoverRepo.Default, FileStore.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const covers = yield* EventCoverRepo
    const store = yield* FileStore
    const outbox = yield* Outbox
    const events = yield* EventRepo

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

    const replaceCover = (event: EventRow, readImage: Effect.Effect<ImageUpload, ValidationFailed>) =>
      Effect.gen(function*() {
        const editor = yield* EventEditor
        const tenant = yield* CurrentTenant
        const image = yield* readImage
        const checked = checkImage(image)
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
     * `readImage` reads the upload, so a refused caller's body is never parsed.
     */
    const upload = Effect.fn("Events.uploadImage")(
      function*(id: EventId, readImage: Effect.Effect<ImageUpload, ValidationFailed>) {
        const event = yield* foundEvent(events.findById(id))
        return yield* requireEventEditor(event)(replaceCover(event, readImage))
      }
    )

    return { upload } as const
  })
}) {}
