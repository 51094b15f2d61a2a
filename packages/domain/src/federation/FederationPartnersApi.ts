import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { OffsetPageParams } from "../http/Cursor.js"
import { DataEnvelope, OffsetPage } from "../http/Envelope.js"
import { PathId, RecordId } from "../http/Ids.js"
import { TrimmedText } from "../http/Text.js"
import { Authentication } from "../identity/Authentication.js"
import { hasTwoDecimals } from "../ledger/Credits.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"
import { FederationStateConflict } from "./FederationErrors.js"

export const FederationPartnerId = RecordId.pipe(Schema.brand("FederationPartnerId"))
export type FederationPartnerId = typeof FederationPartnerId.Type

export const FederationPartnerIdPath = Schema.Struct({ id: PathId(FederationPartnerId) })

/** `failed` is set by the outbound breaker; a successful test call or a reactivation clears it. */
export const PartnerStatus = Schema.Literal("pending", "active", "suspended", "failed")
export type PartnerStatus = typeof PartnerStatus.Type

export const PartnerProtocol = Schema.Literal("native", "komunitin", "credit_commons", "timeoverflow").annotations({
  message: () => ({ message: "must be native, komunitin, credit_commons or timeoverflow", override: true })
})
export type PartnerProtocol = typeof PartnerProtocol.Type

/** The credentials a native partner takes: the key it issued to us and that key's signing secret. */
export const NATIVE_CREDENTIAL_KEYS = ["api_key", "signing_secret"] as const

/** Clearing-account credit limit when the partner's settings give none (decisions D13a). */
export const DEFAULT_PARTNER_CREDIT_LIMIT = 100

const isLoopbackHost = (hostname: string) =>
  hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname)

/** Whether `text` is a URL we may call a partner at: https, or http to a loopback address (development, tests). */
export const partnerUrlAllowed = (text: string): boolean => {
  try {
    const url = new URL(text)
    if (url.hostname === "" || url.username !== "" || url.password !== "") return false
    return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname))
  } catch {
    return false
  }
}

export const PartnerUrl = Schema.Trim.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter(partnerUrlAllowed, {
    message: () => "must be an https URL (http only to a loopback address), without user info",
    jsonSchema: { format: "uri" }
  })
)

const CredentialKey = Schema.String.pipe(
  Schema.pattern(/^[a-z][a-z0-9_]{0,63}$/, { message: () => "credential names are lower_snake_case" })
)
/** Its own type message, so that a secret sent as a number is not echoed back in the 422. */
const CredentialValue = Schema.String.annotations({ message: () => "must be a string" }).pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(4096, { message: () => "must be at most 4096 characters" })
)

/**
 * Credentials as an admin sends them: names to secret strings, exactly those of the partner's protocol (checked by
 * the server's protocol registry; none at all is allowed while a partner is being set up).
 */
export const PartnerCredentialsInput = Schema.Record({ key: CredentialKey, value: CredentialValue }).pipe(
  Schema.filter((c) => Object.keys(c).length <= 20 || "at most 20 credentials")
).annotations({
  description: "Secret strings by name: native `{api_key, signing_secret}`, komunitin `{access_token, " +
    "komunitin_public_keys?}`, credit_commons `{hash_seed}`, timeoverflow `{api_key, webhook_secret}`. Stored " +
    "encrypted, never returned"
})
export type PartnerCredentialsInput = typeof PartnerCredentialsInput.Type

/** Which credentials are set, each answered as `true`: the secrets themselves never leave the server. */
export const PartnerCredentialsSet = Schema.Record({ key: Schema.String, value: Schema.Literal(true) })

export const PartnerCreditLimit = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a number" }),
  Schema.between(0, 1_000_000, { message: () => "must be between 0 and 1000000" }),
  Schema.filter(hasTwoDecimals, { message: () => "must have at most 2 decimals" })
).annotations({ description: "Hours the partner's clearing account may go below zero" })

/** Settings on create: `credit_limit` (hours, default 100) checked; other keys kept as given. */
export const PartnerSettingsInput = Schema.Struct(
  { credit_limit: Schema.optionalWith(PartnerCreditLimit, { exact: true }) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type PartnerSettingsInput = typeof PartnerSettingsInput.Type

/** Settings on update: merged into the stored ones key by key; a key set to null is removed (back to default). */
export const PartnerSettingsPatch = Schema.Struct(
  { credit_limit: Schema.optionalWith(Schema.NullOr(PartnerCreditLimit), { exact: true }) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)
export type PartnerSettingsPatch = typeof PartnerSettingsPatch.Type

export const PartnerSettings = Schema.Struct(
  { credit_limit: Schema.Number.annotations({ description: "Hours (default 100)" }) },
  Schema.Record({ key: Schema.String, value: Schema.Unknown })
)

const PartnerName = TrimmedText(1, 200)

export const CreatePartner = Schema.Struct({
  name: PartnerName,
  protocol_type: PartnerProtocol,
  base_url: PartnerUrl,
  webhook_url: Schema.optionalWith(Schema.NullOr(PartnerUrl), { exact: true }).annotations({
    description: "Where webhooks go; default `base_url` + `/api/v1/federation/webhooks/…`"
  }),
  credentials: Schema.optionalWith(PartnerCredentialsInput, { exact: true }),
  settings: Schema.optionalWith(PartnerSettingsInput, { exact: true })
})
export type CreatePartner = typeof CreatePartner.Type

export const UpdatePartner = Schema.Struct({
  name: Schema.optionalWith(PartnerName, { exact: true }),
  protocol_type: Schema.optionalWith(PartnerProtocol, { exact: true }),
  base_url: Schema.optionalWith(PartnerUrl, { exact: true }),
  webhook_url: Schema.optionalWith(Schema.NullOr(PartnerUrl), { exact: true }),
  credentials: Schema.optionalWith(PartnerCredentialsInput, { exact: true }).annotations({
    description: "Replaces every stored credential"
  }),
  settings: Schema.optionalWith(PartnerSettingsPatch, { exact: true })
})
export type UpdatePartner = typeof UpdatePartner.Type

/** A partner platform as its community's admins see it; credentials only as which names are set. */
export class FederationPartner extends Schema.Class<FederationPartner>("FederationPartner")({
  id: FederationPartnerId,
  name: Schema.String,
  protocol_type: PartnerProtocol,
  base_url: Schema.String,
  webhook_url: Schema.NullOr(Schema.String),
  credentials: PartnerCredentialsSet,
  settings: PartnerSettings,
  status: PartnerStatus,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc,
  cc: Schema.optional(
    Schema.Struct({
      last_hash: Schema.String.annotations({ description: "The hash chain's current hash (the seed before a relay)" })
    })
  ).annotations({ description: "Credit Commons partners, on `GET /partners/{id}` (decisions D16)" })
}) {}

export const PartnersParams = Schema.Struct({
  ...OffsetPageParams.fields,
  status: Schema.optional(
    PartnerStatus.annotations({
      message: () => ({ message: "must be pending, active, suspended or failed", override: true })
    })
  ).annotations({ description: "Only partners with this status" })
})
export type PartnersParams = typeof PartnersParams.Type

export const PartnerDeleted = Schema.Struct({ id: FederationPartnerId, deleted: Schema.Literal(true) })

/** `GET /{id}/position`: the partner's clearing account (decisions D13a). */
export const PartnerPosition = Schema.Struct({
  balance: Schema.Number.annotations({
    description: "Clearing balance in hours; negative = the partner has sent us more than it received"
  }),
  credit_limit: Schema.Number.annotations({ description: "How far below zero the balance may go, in hours" }),
  transactions: Schema.Int.annotations({ description: "Inbound federated transactions of this partner" })
})
export type PartnerPosition = typeof PartnerPosition.Type

/** `POST /{id}/test`: how the signed test call (native) or the diagnose checks (other protocols) went. */
export const PartnerTestResult = Schema.Struct({
  ok: Schema.Boolean,
  status_code: Schema.NullOr(Schema.Int).annotations({
    description: "The partner's HTTP status to the test call; null: no answer, or a non-native partner's checks"
  }),
  latency_ms: Schema.Int,
  error: Schema.optional(Schema.String)
})
export type PartnerTestResult = typeof PartnerTestResult.Type

/** The checks of `POST /{id}/diagnose`, in the order they run (decisions D16); each protocol runs those it has. */
export const PartnerDiagnoseCheckName = Schema.Literal(
  "reachability",
  "currency",
  "auth",
  "account",
  "hash_chain",
  "webhook",
  "clock_skew"
)

export const PartnerDiagnoseCheck = Schema.Struct({
  name: PartnerDiagnoseCheckName,
  ok: Schema.Boolean,
  detail: Schema.String.annotations({ description: "What the partner answered, quoted, or why the check failed" })
})

/** `POST /{id}/diagnose`: every check of the partner's protocol; `ok` when all of them hold. */
export const PartnerDiagnosis = Schema.Struct({
  ok: Schema.Boolean,
  checks: Schema.Array(PartnerDiagnoseCheck)
})
export type PartnerDiagnosis = typeof PartnerDiagnosis.Type

const PARTNERS = "/api/v2/admin/federation/partners"

/**
 * Partner platforms of a community (decisions D13, D13a): tenant admins and platform super-admins. Admin routes
 * work whatever the federation switches say.
 */
export class FederationPartnersApi extends HttpApiGroup.make("federationPartners")
  .annotate(OpenApi.Title, "Admin: federation partners")
  .annotate(
    OpenApi.Description,
    "Partner platforms this community federates with: credentials (stored encrypted, never returned), test call, " +
      "suspension and clearing position; tenant admins and platform super-admins"
  )
  .add(
    HttpApiEndpoint.get("list", PARTNERS)
      .annotate(OpenApi.Summary, "List federation partners")
      .setUrlParams(PartnersParams)
      .addSuccess(OffsetPage(FederationPartner))
      .annotate(OpenApi.Description, "Partners of every status, newest first; deleted ones are gone")
  )
  .add(
    HttpApiEndpoint.post("create", PARTNERS)
      .annotate(OpenApi.Summary, "Add a federation partner")
      .setPayload(CreatePartner)
      .addSuccess(DataEnvelope(FederationPartner), { status: 201 })
      .annotate(OpenApi.Description, "Creates a `pending` partner; a successful test call makes it `active`")
  )
  .add(
    HttpApiEndpoint.get("get", `${PARTNERS}/:id`)
      .annotate(OpenApi.Summary, "Get a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(FederationPartner))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "One partner; its credentials only as the names that are set")
  )
  .add(
    HttpApiEndpoint.put("update", `${PARTNERS}/:id`)
      .annotate(OpenApi.Summary, "Update a federation partner")
      .setPath(FederationPartnerIdPath)
      .setPayload(UpdatePartner)
      .addSuccess(DataEnvelope(FederationPartner))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Changes the given fields; `credentials` replaces all stored credentials, `settings` merges key by key"
      )
  )
  .add(
    HttpApiEndpoint.del("delete", `${PARTNERS}/:id`)
      .annotate(OpenApi.Summary, "Delete a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(PartnerDeleted))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Removes the partner and revokes the API keys bound to it")
  )
  .add(
    HttpApiEndpoint.post("test", `${PARTNERS}/:id/test`)
      .annotate(OpenApi.Summary, "Test a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(PartnerTestResult))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Native: sends a signed `test` webhook (connect 5 s, whole 10 s). Other protocols: runs the diagnose " +
          "checks (`error` names those that failed). Success makes a `pending` or `failed` partner `active`, a " +
          "failure changes nothing"
      )
  )
  .add(
    HttpApiEndpoint.post("diagnose", `${PARTNERS}/:id/diagnose`)
      .annotate(OpenApi.Summary, "Diagnose a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(PartnerDiagnosis))
      .addError(httpError(NotFound))
      .annotate(
        OpenApi.Description,
        "Runs the checks of the partner's protocol in order (reachability, currency, auth, account, hash_chain, " +
          "webhook, clock_skew; each detail quotes the partner). Changes nothing, here or at the partner"
      )
  )
  .add(
    HttpApiEndpoint.post("suspend", `${PARTNERS}/:id/suspend`)
      .annotate(OpenApi.Summary, "Suspend a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(FederationPartner))
      .addError(httpError(NotFound))
      .addError(httpError(FederationStateConflict))
      .annotate(
        OpenApi.Description,
        "`active` or `failed` → `suspended`: its keys are refused and it gets no webhooks; else 409 `INVALID_STATE`"
      )
  )
  .add(
    HttpApiEndpoint.post("reactivate", `${PARTNERS}/:id/reactivate`)
      .annotate(OpenApi.Summary, "Reactivate a federation partner")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(FederationPartner))
      .addError(httpError(NotFound))
      .addError(httpError(FederationStateConflict))
      .annotate(OpenApi.Description, "`suspended` → `active`; else 409 `INVALID_STATE`")
  )
  .add(
    HttpApiEndpoint.get("position", `${PARTNERS}/:id/position`)
      .annotate(OpenApi.Summary, "Get a federation partner's position")
      .setPath(FederationPartnerIdPath)
      .addSuccess(DataEnvelope(PartnerPosition))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "The partner's clearing balance, credit limit and number of transactions")
  )
  .addError(httpError(Forbidden))
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
