import { HttpApiBuilder, HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { Api, ok } from "@timebank/domain"
import { Effect, Option } from "effect"
import { readMultipartForm } from "../platform/MultipartForm.js"
import { payloadTooLarge } from "../platform/RequestBody.js"
import { RefusedInput } from "../platform/RequestGuard.js"
import {
  EventImageService,
  type ImageLimits,
  type ImageUpload,
  invalidImage,
  tooLargeMessage,
  uploadBodyCap
} from "./EventImageService.js"

const MISSING = "is missing: send multipart/form-data with one file in field `image`"

/** At most this many parts in an upload form (the image and a few small fields beside it). */
const MAX_PARTS = 8

/**
 * Reads the `image` file of a multipart body into memory, within the community's limits (decisions D8, D17
 * `images`): the edge holds the route to the largest cap a community may have, and the community's own cap (twice
 * its `max_upload_mb`) applies here — a declared larger body is 413 unread, a streamed one 413 once past it. The
 * image itself must be at most `max_upload_mb`. Every problem with the form is a 422 on field `image`; parts
 * other than `image` are ignored.
 */
export const readImage = (request: HttpServerRequest.HttpServerRequest) => (limits: ImageLimits) =>
  Effect.gen(function*() {
    const cap = uploadBodyCap(limits)
    // Answered by the edge, like its own cap: a 413 in the error envelope.
    const tooLarge = new RefusedInput({ status: 413, errors: payloadTooLarge(cap) })
    if (Number(request.headers["content-length"] ?? 0) > cap) return yield* Effect.die(tooLarge)
    const form = yield* readMultipartForm(request).pipe(HttpIncomingMessage.withMaxBodySize(Option.some(cap)))
    if (Option.isNone(form)) return yield* invalidImage(MISSING)
    if ([...form.value.keys()].length > MAX_PARTS) {
      return yield* invalidImage(`must come with at most ${MAX_PARTS} parts`)
    }
    const parts = form.value.getAll("image")
    const files = parts.filter((part): part is File => typeof part !== "string")
    const [file, ...more] = files
    if (file === undefined) return yield* invalidImage(parts.length > 0 ? "must be a file" : "is missing")
    if (more.length > 0 || parts.length > files.length) return yield* invalidImage("must be exactly one file")
    if (file.size > limits.maxBytes) return yield* invalidImage(tooLargeMessage(limits))
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
