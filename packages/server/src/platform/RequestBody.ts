import { HttpIncomingMessage, type HttpServerRequest } from "@effect/platform"
import { NodeHttpServerRequest } from "@effect/platform-node"
import type { ErrorEntry } from "@timebank/domain"
import { Data, Effect, Option } from "effect"

/**
 * What may follow a body over its cap and still be read (and thrown away), so that the client gets its 413 instead
 * of a reset connection. A client that keeps sending beyond this is cut off.
 */
const DRAIN_BYTES = 16 * 1024 * 1024

/** The answer to a body over `maxBytes`, whether its declared length or its reading found it. */
export const payloadTooLarge = (maxBytes: number): ReadonlyArray<ErrorEntry> => [
  { code: "PAYLOAD_TOO_LARGE", message: `Request body exceeds ${maxBytes} bytes` }
]

/** A body over the cap of its route: answered 413 `PAYLOAD_TOO_LARGE` by the edge. */
export class BodyTooLarge extends Data.TaggedError("BodyTooLarge")<{ readonly maxBytes: number }> {}

/** The body could not be read (the client went away): nobody is left to answer. */
export class BodyUnreadable extends Data.TaggedError("BodyUnreadable")<{ readonly cause: unknown }> {}

/**
 * Reads a request's body whole, within the cap the edge set for its route (`HttpIncomingMessage.MaxBodySize`).
 * Unlike the platform's reader, a body over the cap is not cut off at once: the rest is read and dropped (up to
 * {@link DRAIN_BYTES}), so the 413 reaches a client that streams its body without a declared length.
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest
): Effect.Effect<Uint8Array, BodyTooLarge | BodyUnreadable> =>
  Effect.flatMap(HttpIncomingMessage.MaxBodySize, (cap) => {
    const maxBytes = Option.match(cap, { onNone: () => Number.POSITIVE_INFINITY, onSome: Number })
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    return Effect.async<Uint8Array, BodyTooLarge | BodyUnreadable>((resume) => {
      if (source.readableEnded) return resume(Effect.fail(new BodyUnreadable({ cause: "the body was read before" })))
      const chunks: Array<Buffer> = []
      let bytes = 0
      const onData = (chunk: Buffer) => {
        bytes += chunk.length
        if (bytes <= maxBytes) chunks.push(chunk)
        else if (bytes > maxBytes + DRAIN_BYTES) finish(new BodyTooLarge({ maxBytes }), true)
      }
      const onEnd = () => finish(bytes > maxBytes ? new BodyTooLarge({ maxBytes }) : Buffer.concat(chunks), false)
      const onError = (cause: unknown) => finish(new BodyUnreadable({ cause }), false)
      const finish = (outcome: Uint8Array | BodyTooLarge | BodyUnreadable, cutOff: boolean) => {
        source.off("data", onData).off("end", onEnd).off("error", onError)
        if (cutOff) source.destroy()
        resume(outcome instanceof Uint8Array ? Effect.succeed(outcome) : Effect.fail(outcome))
      }
      source.on("data", onData).once("end", onEnd).once("error", onError)
    })
  })
