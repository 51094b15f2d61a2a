import { createHmac, randomUUID } from "node:crypto"
import type { RawRequest } from "./HttpSender.js"
import type { CaseEnv } from "./Requests.js"

/**
 * How a partner platform calls `/api/v1/federation/*` (decisions D13, D13a): an inbound API key of the community
 * as bearer (no tenant header: the key names the community), HTTP Basic `key_prefix:api_key` on the OAuth token
 * route, and the four `X-Federation-*` HMAC headers on the webhook routes, which take only signed requests. The
 * routes are recognised by their path, whatever security the document declares for them.
 */

export const PARTNER_ROUTES = "/api/v1/federation/"

/** An inbound API key as its admin route answered it. */
export interface PartnerKey {
  readonly id: number
  readonly apiKey: string
  /** The key's first 12 characters: `X-Federation-Platform-ID`, and the OAuth client id. */
  readonly prefix: string
  readonly signingSecret?: string
}

export const isPartnerRoute = (op: { readonly path: string }) => op.path.startsWith(PARTNER_ROUTES)

/** The OAuth token route: HTTP Basic credentials, and RFC 6749 error bodies instead of the D1 envelope. */
export const isTokenRoute = (path: string) => /^\/api\/v1\/federation\/oauth\/token\/?$/.test(path)

/** Routes that take only HMAC-signed requests. */
const isSignedRoute = (path: string) => path.startsWith(`${PARTNER_ROUTES}webhooks/`)

const canonical = (method: string, path: string, timestamp: string, nonce: string, body: string) =>
  [method.toUpperCase(), path, timestamp, nonce, body].join("\n")

/**
 * The request with the four HMAC headers over what goes on the wire (`METHOD\nPATH\nTIMESTAMP\nNONCE\nBODY`, PATH
 * with the query as sent, behind `basePath` when the server lives under one). The secret is the key's signing
 * secret, else the API key itself (the secret a key without `signing` shares with its partner).
 */
export const signRequest = (request: RawRequest, key: PartnerKey, basePath = ""): RawRequest => {
  const timestamp = String(Math.floor(Date.now() / 1000))
  const nonce = randomUUID()
  const body = request.method === "GET" || request.body === undefined
    ? ""
    : typeof request.body === "string"
    ? request.body
    : Buffer.from(request.body).toString("utf8")
  const signature = createHmac("sha256", Buffer.from(key.signingSecret ?? key.apiKey, "utf8"))
    .update(canonical(request.method, basePath + request.path, timestamp, nonce, body), "utf8")
    .digest("hex")
  return {
    ...request,
    headers: {
      ...request.headers,
      "x-federation-platform-id": key.prefix,
      "x-federation-timestamp": timestamp,
      "x-federation-nonce": nonce,
      "x-federation-signature": signature
    }
  }
}

/** `Authorization` of a partner with `key` on `path`: Basic on the token route, the key as bearer elsewhere. */
export const keyAuthorization = (key: PartnerKey, path: string) =>
  isTokenRoute(path)
    ? `Basic ${Buffer.from(`${key.prefix}:${key.apiKey}`, "utf8").toString("base64")}`
    : `Bearer ${key.apiKey}`

/**
 * A partner's case environment: its key as the route takes it, `extra` headers (a tenant header), and on the
 * webhook routes a signature added once the case is rendered, when the request still carries the key (a case that
 * drops or replaces the credentials goes out unsigned, as such a caller would send it).
 */
export const partnerEnv = (
  key: PartnerKey,
  path: string,
  basePath: string,
  extra: Readonly<Record<string, string>> = {}
): CaseEnv => {
  const authorization = keyAuthorization(key, path)
  return {
    auth: { authorization, ...extra },
    ...(isSignedRoute(path)
      ? {
        finish: (request: RawRequest) =>
          request.headers["authorization"] === authorization ? signRequest(request, key, basePath) : request
      }
      : {})
  }
}

/** RFC 6749 §5.2 error codes. */
const OAUTH_ERRORS = [
  "invalid_request",
  "invalid_client",
  "invalid_grant",
  "unauthorized_client",
  "unsupported_grant_type",
  "invalid_scope"
]

/** Why a body is not an RFC 6749 error `{"error", "error_description"?}` (decisions D13a), or undefined. */
export const oauthErrorProblem = (text: string): string | undefined => {
  let body: unknown
  try {
    body = JSON.parse(text)
  } catch {
    return "body is not JSON"
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "body is not a JSON object"
  const record = body as Record<string, unknown>
  const extra = Object.keys(record).filter((k) => !["error", "error_description", "error_uri"].includes(k))
  if (extra.length > 0) return `top-level keys [${Object.keys(record).join(", ")}] are not RFC 6749's`
  if (typeof record["error"] !== "string" || !OAUTH_ERRORS.includes(record["error"])) {
    return `error ${JSON.stringify(record["error"])} is not an RFC 6749 error code`
  }
  if (typeof record["error_description"] !== "string") return "error_description is not a string"
  return undefined
}
