import { HttpServerResponse } from "@effect/platform"
import type { ErrorEntry } from "@timebank/domain"
import { Effect } from "effect"

/**
 * A family of routes that speaks another platform's wire format (decisions D13a, D16): OAuth's token endpoint,
 * Komunitin's JSON:API, Credit Commons. The edge rewrites every response of a matching request, including the
 * errors that never reached a handler (the guard's 400s, the decoder's 422s, 404s, 405s), so a peer always gets
 * its own dialect. Dialects are declared by the features and handed to the edge by the composition root.
 */
export interface WireDialect {
  readonly name: string
  /** Whether a request path (without its query) speaks this dialect. */
  readonly matches: (path: string) => boolean
  readonly rewrite: (
    response: HttpServerResponse.HttpServerResponse
  ) => Effect.Effect<HttpServerResponse.HttpServerResponse>
}

/** The JSON text of a response whose body is held in memory, else undefined. */
export const jsonBodyOf = (response: HttpServerResponse.HttpServerResponse): unknown => {
  if (response.body._tag !== "Uint8Array") return undefined
  try {
    return JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return undefined
  }
}

/** The entries of our error envelope (decisions D1) in a response, or undefined when it carries none. */
export const errorEntriesOf = (
  response: HttpServerResponse.HttpServerResponse
): ReadonlyArray<ErrorEntry> | undefined => {
  if (response.status < 400) return undefined
  const body = jsonBodyOf(response) as { readonly errors?: unknown } | undefined
  if (body === undefined || !Array.isArray(body.errors)) return undefined
  const entries = body.errors as ReadonlyArray<unknown>
  return entries.every((e) => typeof e === "object" && e !== null && typeof (e as ErrorEntry).code === "string")
    ? entries as ReadonlyArray<ErrorEntry>
    : undefined
}

/** The same response with a new JSON body (and status), its headers kept. */
export const withJsonBody = (
  response: HttpServerResponse.HttpServerResponse,
  body: unknown,
  options: { readonly status?: number; readonly contentType?: string } = {}
) =>
  HttpServerResponse.uint8Array(new TextEncoder().encode(JSON.stringify(body)), {
    status: options.status ?? response.status,
    headers: response.headers,
    contentType: options.contentType ?? "application/json"
  })

/** The same response under another media type (a JSON:API `application/vnd.api+json`, say). */
export const withContentType = (response: HttpServerResponse.HttpServerResponse, contentType: string) =>
  response.body._tag === "Uint8Array"
    ? HttpServerResponse.uint8Array(response.body.body, {
      status: response.status,
      headers: response.headers,
      contentType
    })
    : response

/** The first dialect whose routes include `path`. */
export const dialectOf = (dialects: ReadonlyArray<WireDialect>, path: string) =>
  dialects.find((dialect) => dialect.matches(path))

export const rewriteWith = (dialect: WireDialect) => (response: HttpServerResponse.HttpServerResponse) =>
  Effect.suspend(() => dialect.rewrite(response))
