import { HttpServerRequest } from "@effect/platform"
import { Effect, Option } from "effect"

/**
 * The caller's IP: the socket's address, or with `trustProxy` (TRUST_PROXY=true) the first `X-Forwarded-For` entry
 * (decisions D10).
 */
export const clientIp = (trustProxy: boolean) =>
  Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
    const forwarded = trustProxy ? request.headers["x-forwarded-for"]?.split(",")[0]?.trim() : undefined
    return forwarded || Option.getOrElse(request.remoteAddress, () => "unknown")
  })
