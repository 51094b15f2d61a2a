import { HttpServerResponse } from "@effect/platform"
import { OAUTH_TOKEN_PATH } from "@timebank/domain"
import { Effect } from "effect"
import type { WireDialect } from "../../platform/WireDialect.js"

interface Envelope {
  readonly errors?: ReadonlyArray<{ readonly message?: unknown; readonly field?: unknown }>
}

const describe = (envelope: Envelope) =>
  (envelope.errors ?? [])
    .map((e) => (typeof e.field === "string" ? `${e.field}: ${String(e.message)}` : String(e.message)))
    .join("; ")

/**
 * The OAuth token endpoint speaks RFC 6749 (decisions D1, D13a) even where the request never reached its handler:
 * what the edge guard or the form decoder refuses (control characters, bad percent-encoding, a repeated field, a
 * body that is not a form) would be a D1 `{"errors": [...]}` 400 or 422; here it becomes 400
 * `{"error": "invalid_request", "error_description"}`. Other statuses (413, 429, 503) keep the envelope.
 */
const toOAuthError = (response: HttpServerResponse.HttpServerResponse) => {
  if ((response.status !== 400 && response.status !== 422) || response.body._tag !== "Uint8Array") {
    return Effect.succeed(response)
  }
  let envelope: Envelope
  try {
    envelope = JSON.parse(new TextDecoder().decode(response.body.body)) as Envelope
  } catch {
    return Effect.succeed(response)
  }
  if (!Array.isArray(envelope.errors)) return Effect.succeed(response)
  return Effect.succeed(
    HttpServerResponse.unsafeJson(
      { error: "invalid_request", error_description: describe(envelope) || "The request is not valid" },
      { status: 400, headers: response.headers }
    )
  )
}

/** `POST /api/v1/federation/oauth/token` answers its errors as RFC 6749 says. */
export const OAuthDialect: WireDialect = {
  name: "oauth",
  matches: (path) => path === OAUTH_TOKEN_PATH,
  rewrite: toOAuthError
}
