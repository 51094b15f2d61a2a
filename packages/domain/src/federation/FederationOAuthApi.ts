import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { httpError } from "../http/ApiError.js"
import { FederationDisabled } from "./FederationErrors.js"

/** The token endpoint: its errors are RFC 6749's `{"error", "error_description"}`, never the D1 envelope. */
export const OAUTH_TOKEN_PATH = "/api/v1/federation/oauth/token"
/**
 * `POST /api/v1/federation/oauth/token` (decisions D13, D13a): OAuth 2.0 client credentials (RFC 6749 §4.4). Its
 * bodies are RFC 6749's, not the D1 envelope: the token at the top level, errors as `{error, error_description}`.
 */

const formField = (description: string) => Schema.optional(Schema.String).annotations({ description })

/**
 * The form. Fields are read leniently (any string or absent) so that mistakes are answered in RFC 6749's words
 * by the handler, not as a 422 of the contract's decoder.
 */
export const FederationTokenRequest = Schema.Struct({
  grant_type: formField("`client_credentials`"),
  scope: formField("Space-separated scopes, each one the key has; absent: all of the key's scopes")
}).pipe(HttpApiSchema.withEncoding({ kind: "UrlParams" }))
export type FederationTokenRequest = typeof FederationTokenRequest.Type

export const FederationTokenResponse = Schema.Struct({
  access_token: Schema.String.annotations({ description: "An HS256 JWT; send it as `Authorization: Bearer`" }),
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Int.annotations({ description: "Seconds: 3600" }),
  scope: Schema.String.annotations({ description: "The scopes granted, space-separated" })
})
export type FederationTokenResponse = typeof FederationTokenResponse.Type

const oauthErrorFields = { error_description: Schema.String }

/** 400: `invalid_request` (no or repeated `grant_type`), `unsupported_grant_type`, `invalid_scope` (a scope the key lacks). */
export class OAuthRequestRefused extends Schema.TaggedError<OAuthRequestRefused>()("OAuthRequestRefused", {
  error: Schema.Literal("invalid_request", "unsupported_grant_type", "invalid_scope"),
  ...oauthErrorFields
}) {}

/** 401 `invalid_client`: no HTTP Basic credentials, or not those of a usable key. */
export class OAuthClientRefused extends Schema.TaggedError<OAuthClientRefused>()("OAuthClientRefused", {
  error: Schema.Literal("invalid_client"),
  ...oauthErrorFields
}) {}

/** RFC 6749 §5.2's body on the wire, the tagged error in code. */
const oauthError = <A extends { readonly error: string; readonly error_description: string }, I>(
  cls: Schema.Schema<A, I> & { readonly fields: { readonly error: Schema.Schema<A["error"]> } },
  status: number
) =>
  Schema.transform(
    Schema.Struct({ error: cls.fields.error, error_description: Schema.String }),
    Schema.typeSchema(cls),
    {
      strict: false,
      decode: (body) => new (cls as unknown as new(a: object) => A)(body),
      encode: (error) => ({ error: error.error, error_description: error.error_description })
    }
  ).annotations(HttpApiSchema.annotations({ status }))

export class FederationOAuthApi extends HttpApiGroup.make("federationOAuth")
  .annotate(OpenApi.Title, "Federation: OAuth")
  .annotate(OpenApi.Description, "Short-lived tokens for partner platforms (client credentials)")
  .add(
    HttpApiEndpoint.post("token", OAUTH_TOKEN_PATH)
      .annotate(OpenApi.Summary, "Issue a federation token")
      .annotate(
        OpenApi.Description,
        "Form-encoded `grant_type=client_credentials` and `scope`, with HTTP Basic `key_prefix:api_key`. Answers " +
          "`{access_token, token_type, expires_in, scope}` (an HS256 JWT valid one hour) with " +
          "`Cache-Control: no-store`. Errors are RFC 6749's `{error, error_description}`: 400 `invalid_request`, " +
          "`unsupported_grant_type`, `invalid_scope`; 401 `invalid_client`. Only the platform switch and the " +
          "community's whitelist apply (503 `FEDERATION_DISABLED`)"
      )
      .setPayload(FederationTokenRequest)
      .addSuccess(FederationTokenResponse)
      .addError(oauthError(OAuthRequestRefused, 400))
      .addError(oauthError(OAuthClientRefused, 401))
      .addError(httpError(FederationDisabled))
  )
{}
