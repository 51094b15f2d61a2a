import { HttpApiBuilder, type HttpServerRequest } from "@effect/platform"
import { Api, EVENT_IMAGE_MAX_BYTES, ok } from "@timebank/domain"
import { Effect, Option } from "effect"
import { readMultipartForm } from "../platform/MultipartForm.js"
import { EventImageService, type ImageUpload, invalidImage } from "./EventImageService.js"

const MISSING = "is missing: send multipart/form-data with one file in field `image`"

/** At most this many parts in an upload form (the image and a few small fields beside it). */
const MAX_PARTS = 8

/**
 * Reads the `image` file of a multipart body into memory, within the decisions D8 limits: the route's body cap
 * (10 MiB, larger → 413 at the edge) bounds the read, the image itself must be at most 5 MB. Every problem with the
 * form is a 422 on field `image`; parts other than `image` are ignored.
 */
export const readImage = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    const form = yield* readMultipartForm(request)
    if (Option.isNone(form)) return yield* invalidImage(MISSING)
    if ([...form.value.keys()].length > MAX_PARTS) {
      return yield* invalidImage(`must come with at most ${MAX_PARTS} parts`)
    }
    const parts = form.value.getAll("image")
    const files = parts.filter((part): part is File => typeof part !== "string")
    const [file, ...more] = files
    if (file === undefined) return yield* invalidImage(parts.length > 0 ? "must be a file" : "is missing")
    if (more.length > 0 || parts.length > files.length) return yield* invalidImage("must be exactly one file")
    if (file.size > EVENT_IMAGE_MAX_BYTES) return yield* invalidImage("must be at most 5 MB")
    const bytes = new Uint8Array(yield* Effect.promise(() => file.arrayBuffer()))
    return { bytes, declaredType: file.type } satisfies ImageUpload
  })

export const EventImageHttpLive = HttpApiBuilder.group(Api, "eventImages", (handlers) =>
  Effect.gen(function*() {
    const images = yield* EventImageService
    return handlers.handleRaw(
      "upload",
      ({ path, request }) => Effect.map(images.upload(path.id, readImage(request)), ok)
    )
  }))
