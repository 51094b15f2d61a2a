import type { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"
import { hasMultipartBoundary } from "./MultipartBoundary.js"

/**
 * The form of a `multipart/form-data` request, read whole (the edge caps the body: a larger one is 413) and parsed
 * by the runtime's `FormData`. Uploads use this rather than the streaming parser behind the contract's multipart
 * schemas: that one never finishes on an empty body or one cut off inside a part, which would hold the connection
 * for ever. `None` when the body is not a readable multipart form (the route answers its own 422).
 */
export const readMultipartForm = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Option.Option<FormData>> =>
  Effect.gen(function*() {
    const contentType = request.headers["content-type"] ?? ""
    if (!hasMultipartBoundary(contentType)) return Option.none()
    // Failures here (too large, connection lost) are the edge's to answer, as for JSON bodies.
    const body = yield* Effect.orDie(request.arrayBuffer)
    return yield* Effect.tryPromise(() => new Response(body, { headers: { "content-type": contentType } }).formData())
      .pipe(Effect.option)
  })
