import { HttpApiBuilder, type HttpServerRequest, Multipart } from "@effect/platform"
import { Api, EVENT_IMAGE_MULTIPART_LIMITS, ok } from "@timebank/domain"
import { Chunk, Effect, Stream } from "effect"
import { EventImageService, type ImageUpload, invalidImage } from "./EventImageService.js"

const MISSING = "is missing: send multipart/form-data with one file in field `image`"

const PARSER_ERRORS = new Set(["InvalidBoundary", "BadHeaders", "InvalidDisposition", "ReachedLimit", "EndNotReached"])

/**
 * What went wrong, as the client should hear it. A limit that trips while a file's content is being read surfaces
 * as an `InternalError` carrying the parser's own error, so that cause is looked at too; any other internal error
 * is a defect.
 */
const multipartProblem = (error: Multipart.MultipartError) => {
  const cause = error.cause as { readonly _tag?: unknown; readonly limit?: unknown } | undefined
  const fromParser = typeof cause?._tag === "string" && PARSER_ERRORS.has(cause._tag)
  if (error.reason === "InternalError" && !fromParser) return Effect.die(error)
  const tooLarge = error.reason === "FileTooLarge" || error.reason === "BodyTooLarge" ||
    cause?.limit === "MaxPartSize" || cause?.limit === "MaxTotalSize"
  return Effect.fail(invalidImage(tooLarge ? "must be at most 5 MB" : MISSING))
}

// The parameter grammar of RFC 7231 as the multipart parser reads it (multipasta, after fast-content-type-parse).
const PARAMETER =
  /; *([!#$%&'*+.^\w`|~-]+)=("(?:[\v\u0020\u0021\u0023-\u005b\u005d-\u007e\u0080-\u00ff]|\\[\v\u0020-\u00ff])*"|[!#$%&'*+.^\w`|~-]+) */gu

/**
 * Whether the content type is `multipart/form-data` with a boundary the parser will accept. The parser reports a
 * missing boundary by throwing while it is being built, which would be a 500; so such bodies stop here.
 */
export const hasMultipartBoundary = (contentType: string): boolean => {
  const semicolon = contentType.indexOf(";")
  if (semicolon === -1 || contentType.slice(0, semicolon).trim().toLowerCase() !== "multipart/form-data") return false
  let index = semicolon
  let boundary = false
  PARAMETER.lastIndex = index
  let match: RegExpExecArray | null
  while ((match = PARAMETER.exec(contentType)) !== null) {
    if (match.index !== index) return false
    index += match[0].length
    if (match[1]!.toLowerCase() === "boundary" && match[2]!.replace(/^"|"$/g, "") !== "") boundary = true
  }
  return index === contentType.length && boundary
}

/** A file part's content in memory (the parser's size limit has already capped it). */
const contentOf = (file: Multipart.File) =>
  Effect.map(Stream.runCollect(file.content), (chunks) => new Uint8Array(Buffer.concat(Chunk.toReadonlyArray(chunks))))

/**
 * Reads the `image` file of a multipart body, within the decisions D8 limits, into memory. The HttpApi would turn
 * multipart failures (a file over the limit, a body that is not multipart) into defects, and its temporary files
 * take the client's file name as a path; so this endpoint reads its own body, streaming, and answers every such
 * problem as 422 on field `image`. Parts other than `image` are read past and dropped.
 */
export const readImage = (request: HttpServerRequest.HttpServerRequest) =>
  Effect.gen(function*() {
    if (!hasMultipartBoundary(request.headers["content-type"] ?? "")) return yield* invalidImage(MISSING)
    const files: Array<ImageUpload> = []
    let textField = false
    yield* Stream.runForEach(
      Multipart.withLimitsStream(request.multipartStream, EVENT_IMAGE_MULTIPART_LIMITS),
      (part) => {
        if (part._tag === "Field") {
          textField ||= part.key === "image"
          return Effect.void
        }
        // Every file's content must be consumed, in order, for the parser to reach the next part.
        if (part.key !== "image") return Stream.runDrain(part.content)
        return Effect.map(contentOf(part), (bytes) => {
          files.push({ bytes, declaredType: part.contentType })
        })
      }
    ).pipe(Effect.catchTag("MultipartError", multipartProblem))
    const [file, ...more] = files
    if (file === undefined) return yield* invalidImage(textField ? "must be a file" : "is missing")
    if (more.length > 0 || textField) return yield* invalidImage("must be exactly one file")
    return file
  })

export const EventImageHttpLive = HttpApiBuilder.group(Api, "eventImages", (handlers) =>
  Effect.gen(function*() {
    const images = yield* EventImageService
    return handlers.handleRaw(
      "upload",
      ({ path, request }) => Effect.map(images.upload(path.id, readImage(request)), ok)
    )
  }))
