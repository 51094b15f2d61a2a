import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { AlreadyRevoked } from "./FederationErrors.js"
import { FederationScope } from "./FederationScopes.js"

export const ApiKeyId = RecordId.pipe(Schema.brand("FederationApiKeyId"))
export type ApiKeyId = typeof ApiKeyId.Type

export const ApiKeyStatus = Schema.Literal("active", "revoked")
export type ApiKeyStatus = typeof ApiKeyStatus.Type

export const API_KEY_NAME_MAX = 100
export const RATE_LIMIT_PER_MINUTE_DEFAULT = 60
export const RATE_LIMIT_PER_MINUTE_MAX = 10_000

const exact = <S extends Schema.Schema.All>(schema: S) => Schema.optionalWith(schema, { exact: true })

/** An inbound API key as tenant admins see it: never its secrets, which exist only in the answer that made it. */
export class ApiKeyView extends Schema.Class<ApiKeyView>("FederationApiKey")({
  id: ApiKeyId,
  name: Schema.String,
  key_prefix: Schema.String.annotations({
    description: "The key's first 12 characters: it names the key in `X-Federation-Platform-ID`"
  }),
  scopes: Schema.Array(FederationScope),
  rate_limit_per_minute: Schema.Int,
  signing: Schema.Boolean.annotations({ description: "Requests with this key must be HMAC-signed" }),
  status: ApiKeyStatus,
  partner_id: Schema.NullOr(RecordId).annotations({ description: "The partner the key belongs to, if any" }),
  expires_at: Schema.NullOr(Schema.DateTimeUtc).annotations({
    description: "After this the key is refused (401 `INVALID_API_KEY`); null: it does not expire"
  }),
  last_used_at: Schema.NullOr(Schema.DateTimeUtc),
  revoked_at: Schema.NullOr(Schema.DateTimeUtc),
  created_at: Schema.DateTimeUtc
}) {}

/** The answer of `POST /api-keys`: the key and its secrets, shown this once. */
export class CreatedApiKey extends Schema.Class<CreatedApiKey>("FederationCreatedApiKey")({
  ...ApiKeyView.fields,
  api_key: Schema.String.annotations({ description: "`tbk_` + 64 hex; shown only now, stored only as its SHA-256" }),
  signing_secret: Schema.optional(Schema.String).annotations({
    description: "`tbs_` + 64 hex, present only when `signing` is true; shown only now"
  })
}) {}

/** `POST /api/v2/admin/federation/api-keys` (decisions D13, D13a). */
export const CreateApiKey = Schema.Struct({
  name: TrimmedText(1, API_KEY_NAME_MAX).annotations({ description: "What the key is for, for admins" }),
  scopes: Schema.Array(FederationScope).pipe(Schema.minItems(1)).annotations({
    description: "At least one; repeated scopes count once"
  }),
  partner_id: exact(Schema.NullOr(RecordId)).annotations({
    description: "A partner of this community; writes need a key bound to an active partner"
  }),
  rate_limit_per_minute: exact(Schema.Int.pipe(Schema.between(1, RATE_LIMIT_PER_MINUTE_MAX))).annotations({
    description:
      `Requests per fixed minute, 1 to ${RATE_LIMIT_PER_MINUTE_MAX} (default ${RATE_LIMIT_PER_MINUTE_DEFAULT})`
  }),
  signing: exact(Schema.Boolean).annotations({
    description: "Issue a signing secret; requests must then be HMAC-signed (default false)"
  }),
  expires_at: exact(Schema.NullOr(Schema.DateTimeUtc)).annotations({
    description: "A time in the future (any offset); null or absent: the key does not expire"
  })
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type CreateApiKey = typeof CreateApiKey.Type

export const ListApiKeysParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(ApiKeyStatus).annotations({ description: "Only keys with this status" })
})
export type ListApiKeysParams = typeof ListApiKeysParams.Type

export const ApiKeyIdPath = Schema.Struct({ id: PathId(ApiKeyId) })

const KEYS = "/api/v2/admin/federation/api-keys"

/** The keys partners call `/api/v1/federation/*` with: tenant admins and platform super-admins (decisions D13). */
export class AdminFederationKeysApi extends HttpApiGroup.make("adminFederationKeys")
  .annotate(OpenApi.Title, "Admin: federation API keys")
  .annotate(
    OpenApi.Description,
    "Inbound API keys of this community's partners: tenant admins and platform super-admins. These routes work " +
      "whatever the federation switches say."
  )
  .add(
    HttpApiEndpoint.get("list", KEYS)
      .annotate(OpenApi.Summary, "List federation API keys")
      .annotate(OpenApi.Description, "This community's keys, newest first, revoked ones included; no secrets")
      .setUrlParams(ListApiKeysParams)
      .addSuccess(OffsetPage(ApiKeyView))
  )
  .add(
    HttpApiEndpoint.post("create", KEYS)
      .annotate(OpenApi.Summary, "Create a federation API key")
      .annotate(
        OpenApi.Description,
        "Issues a key (and a signing secret when `signing`); both are answered only now. An unknown scope is 422 " +
          "field `scopes.<n>`, a partner of another community 422 field `partner_id`"
      )
      .setPayload(CreateApiKey)
      .addSuccess(DataEnvelope(CreatedApiKey), { status: 201 })
  )
  .add(
    HttpApiEndpoint.get("get", `${KEYS}/:id`)
      .annotate(OpenApi.Summary, "Get a federation API key")
      .annotate(OpenApi.Description, "One key of this community; no secrets")
      .setPath(ApiKeyIdPath)
      .addSuccess(DataEnvelope(ApiKeyView))
      .addError(httpError(NotFound))
  )
  .add(
    HttpApiEndpoint.post("revoke", `${KEYS}/:id/revoke`)
      .annotate(OpenApi.Summary, "Revoke a federation API key")
      .annotate(OpenApi.Description, "The key is refused from now on, on every runner; revoking twice is 409")
      .setPath(ApiKeyIdPath)
      .addSuccess(DataEnvelope(ApiKeyView))
      .addError(httpError(NotFound))
      .addError(httpError(AlreadyRevoked))
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
