import { HttpApp, HttpServerResponse } from "@effect/platform"
import { Effect } from "effect"

/** Adds headers to the current request's response, whether it ends in success or in an error. */
export const setResponseHeaders = (headers: Record<string, string>) =>
  HttpApp.appendPreResponseHandler((_request, response) =>
    Effect.succeed(HttpServerResponse.setHeaders(response, headers))
  )

export const setRetryAfter = (seconds: number) => setResponseHeaders({ "retry-after": String(seconds) })
