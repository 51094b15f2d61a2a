import {
  CurrentTenant,
  EVENT_IMAGE_MAX_BYTES,
  type EventId,
  type EventImage,
  type EventImageType,
  NotFound,
  ValidationFailed
} from "@timebank/domain"
import { type Cause, Effect, Option } from "effect"
import { requireFeature } from "../platform/FeatureGate.js"
import { FileStore, keyOfUrl, uploadKey } from "../platform/FileStore.js"
import { Outbox } from "../platform/Outbox.js"
import { TenantSql } from "../platform/TenantSql.js"
import { EventRepo, type EventRow } from "./EventRepo.js"
import { EventEditor, requireEventEditor } from "./EventsPolicy.js"

const gate = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.zipRight(requireFeature("events"), effect)

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

/** The row a series shares its cover with: the template of a recurring series, else the event itself. */
export const seriesRootOf = (event: Pick<EventRow, "id" | "is_recurring_template" | "parent_event_id">) =>
  Number(event.is_recurring_template ? event.id : event.parent_event_id ?? event.id)

/** Event cover images (decisions D8), stored through the FileStore; gated on the `events` feature. */
export class EventImageService extends Effect.Service<EventImageService>()("EventImageService", {
  dependencies: [EventRepo.Default, FileStore.Default, Outbox.Default, TenantSql.Default],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const { sql } = db
    const store = yield* FileStore
    const outbox = yield* Outbox
    const events = yield* EventRepo

    /** Sets the cover of the series root and all its occurrences in one statement; returns the ids changed. */
    const setCover = (rootId: number, url: string) =>
      db.query((tenantId) =>
        sql<{ id: string }>`UPDATE events SET cover_image = ${url}, updated_at = now()
          WHERE tenant_id = ${tenantId} AND (id = ${rootId} OR parent_event_id = ${rootId})
          RETURNING id`.pipe(Effect.map((rows) => rows.map((r) => Number(r.id)).sort((a, b) => a - b)))
      )

    /**
     * The covers the series' rows show before the change, each once. The rows are locked, so two replacements of one
     * series take turns and each sees the cover the other set.
     */
    const coversOf = (rootId: number) =>
      db.query((tenantId) =>
        sql<{ cover_image: string }>`SELECT cover_image FROM events
          WHERE tenant_id = ${tenantId} AND (id = ${rootId} OR parent_event_id = ${rootId}) AND cover_image IS NOT NULL
          FOR UPDATE`.pipe(Effect.map((rows) => [...new Set(rows.map((r) => r.cover_image))]))
      )

    /** Which of these covers an event of the community still shows (a detached occurrence keeps its old one). */
    const coversInUse = (urls: ReadonlyArray<string>) =>
      db.query((tenantId) =>
        sql<{ cover_image: string }>`SELECT DISTINCT cover_image FROM events
          WHERE tenant_id = ${tenantId} AND cover_image IN ${sql.in(urls)}`.pipe(
          Effect.map((rows) => new Set(rows.map((r) => r.cover_image)))
        )
      )

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
        const inUse = yield* coversInUse(replaced)
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
          const previous = yield* coversOf(seriesRootOf(event))
          const eventIds = yield* setCover(seriesRootOf(event), url)
          yield* outbox.append("CommunityEventUpdated", {
            event_id: Number(event.id),
            user_id: Number(event.user_id),
            title: event.title,
            // `changed` names what attendees are told about (title, times, place); a new cover is not one of them.
            changed: [],
            fields: ["cover_image"],
            cover_image: url,
            event_ids: eventIds,
            updated_by: editor.userId
          })
          return { eventIds, previous }
        })).pipe(
          // Nothing refers to the new file when the change did not commit.
          Effect.onError(() => store.remove(key).pipe(Effect.catchAllCause(logCleanupFailure("unused upload", [key]))))
        )
        yield* deleteReplaced(previous, url)
        yield* Effect.annotateCurrentSpan({ event_ids: eventIds.join(","), bytes: image.bytes.length })
        return { id: Number(event.id) as EventId, cover_image: url } satisfies EventImage
      })

    /**
     * Stores a new cover image for an event. The event and the caller's right to change it are checked before
     * `readImage` reads the upload, so a refused caller's body is never parsed.
     */
    const upload = Effect.fn("Events.uploadImage")(
      function*(id: EventId, readImage: Effect.Effect<ImageUpload, ValidationFailed>) {
        const event = yield* Effect.flatMap(
          events.findById(id),
          Option.match({ onNone: () => Effect.fail(NotFound.of("Event")), onSome: Effect.succeed })
        )
        return yield* requireEventEditor(event)(replaceCover(event, readImage))
      },
      gate
    )

    return { upload } as const
  })
}) {}
