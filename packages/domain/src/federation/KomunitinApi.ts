import { HttpApiEndpoint, HttpApiGroup, HttpApiSchema, OpenApi } from "@effect/platform"
import type { Schema } from "effect"
import { ApiError, Forbidden, httpError, NotFound } from "../http/ApiError.js"
import { FederationDisabled } from "./FederationErrors.js"
import {
  KomunitinAccountsRead,
  KomunitinPublicReadLimit,
  KomunitinTransfersRead,
  KomunitinTransfersWrite
} from "./KomunitinAccess.js"
import {
  KomunitinAccount,
  KomunitinAccountListParams,
  KomunitinCodePath,
  KomunitinCollection,
  KomunitinCurrency,
  KomunitinDocument,
  KomunitinListParams,
  KomunitinResourcePath,
  KomunitinTransfer,
  KomunitinTransferInput,
  KomunitinTransferUpdate
} from "./KomunitinResources.js"

/** Komunitin's media type: every answer of these routes carries it (`application/json` requests are read too). */
export const JSON_API_MEDIA_TYPE = "application/vnd.api+json"

// Komunitin's own error codes, raised where the Komunitin route raises them (decisions D16).

/** A request Komunitin refuses as a whole (`BadRequest`): both parties external, a route id that disagrees. */
export class KomunitinBadRequest extends ApiError<KomunitinBadRequest>()("KomunitinBadRequest", "BadRequest", 400) {}

/** A state change the transfer's state does not allow (`TransactionError`). */
export class KomunitinTransactionError
  extends ApiError<KomunitinTransactionError>()("KomunitinTransactionError", "TransactionError", 400)
{}

/** The partner's clearing account would go below −`settings.credit_limit` (`InsufficientBalance`). */
export class KomunitinInsufficientBalance
  extends ApiError<KomunitinInsufficientBalance>()("KomunitinInsufficientBalance", "InsufficientBalance", 400)
{}

/** The transfer id was used with a different request (`Conflict`). */
export class KomunitinConflict extends ApiError<KomunitinConflict>()("KomunitinConflict", "Conflict", 409) {}

const FEDERATION = "/api/v1/federation/:code"

const jsonApi = <S extends Schema.Schema.Any>(schema: S) =>
  schema.pipe(HttpApiSchema.withEncoding({ kind: "Json", contentType: JSON_API_MEDIA_TYPE }))

const TransferDocument = jsonApi(KomunitinDocument(KomunitinTransfer))

/**
 * Komunitin's accounting API (JSON:API) at `/api/v1/federation/{CODE}` (decisions D16): a Komunitin server pays our
 * members as it pays an external account on another Komunitin server.
 */
export class KomunitinApi extends HttpApiGroup.make("komunitin")
  .annotate(OpenApi.Title, "Federation: Komunitin JSON:API")
  .annotate(
    OpenApi.Description,
    "Komunitin's accounting API for `{CODE}`, the community's currency code (unknown → 404). One unit is a " +
      "hundredth of an hour (`scale` 2, `rate` 1/1). Answers are `application/vnd.api+json`; errors are " +
      "Komunitin's `{\"errors\": [{\"status\", \"code\", \"title\", \"detail\"}]}` (one entry) and keep our " +
      "federation codes (`FEDERATION_DISABLED`, `TENANT_MISMATCH`, `INVALID_API_KEY`, …). Besides an API key, HMAC " +
      "or federation JWT of this community bound to a partner, the transfer routes take a Komunitin server's EdDSA " +
      "JWT whose `sub` is a Stellar key a `komunitin` partner pinned in `credentials.komunitin_public_keys`"
  )
  .add(
    HttpApiEndpoint.get("currency", `${FEDERATION}/currency`)
      .annotate(OpenApi.Summary, "Read the currency")
      .setPath(KomunitinCodePath)
      .addSuccess(jsonApi(KomunitinDocument(KomunitinCurrency)))
      .addError(httpError(NotFound))
      .addError(httpError(FederationDisabled))
      .annotate(
        OpenApi.Description,
        "No credentials: partners read it to convert amounts. Obeys the federation switches (toggle `transactions`)"
      )
      .middleware(KomunitinPublicReadLimit)
  )
  .add(
    HttpApiEndpoint.get("account", `${FEDERATION}/accounts/:id`)
      .annotate(OpenApi.Summary, "Read an account")
      .setPath(KomunitinResourcePath)
      .addSuccess(jsonApi(KomunitinDocument(KomunitinAccount)))
      .addError(httpError(NotFound))
      .addError(httpError(FederationDisabled))
      .annotate(
        OpenApi.Description,
        "No credentials (a partner reads the `href` of an external account). A member who has not opted in to " +
          "federation, or an unknown id → 404. No balance"
      )
      .middleware(KomunitinPublicReadLimit)
  )
  .add(
    HttpApiEndpoint.get("accounts", `${FEDERATION}/accounts`)
      .annotate(OpenApi.Summary, "Find accounts by code")
      .setPath(KomunitinCodePath)
      .setUrlParams(KomunitinAccountListParams)
      .addSuccess(jsonApi(KomunitinCollection(KomunitinAccount)))
      .addError(httpError(NotFound))
      .addError(httpError(KomunitinBadRequest))
      .annotate(
        OpenApi.Description,
        "`filter[code]` (required): account codes, comma-separated; opted-in members only (`members:read`)"
      )
      .middleware(KomunitinAccountsRead)
  )
  .add(
    HttpApiEndpoint.get("transfers", `${FEDERATION}/transfers`)
      .annotate(OpenApi.Summary, "List the partner's transfers")
      .setPath(KomunitinCodePath)
      .setUrlParams(KomunitinListParams)
      .addSuccess(jsonApi(KomunitinCollection(KomunitinTransfer)))
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "The transfers the calling partner sent (`transactions:read`)")
      .middleware(KomunitinTransfersRead)
  )
  .add(
    HttpApiEndpoint.get("transfer", `${FEDERATION}/transfers/:id`)
      .annotate(OpenApi.Summary, "Read one of the partner's transfers")
      .setPath(KomunitinResourcePath)
      .addSuccess(TransferDocument)
      .addError(httpError(NotFound))
      .annotate(OpenApi.Description, "Another partner's transfer is 404")
      .middleware(KomunitinTransfersRead)
  )
  .add(
    HttpApiEndpoint.post("createTransfer", `${FEDERATION}/transfers`)
      .annotate(OpenApi.Summary, "Pay a member from a partner's account")
      .setPath(KomunitinCodePath)
      .setPayload(jsonApi(KomunitinTransferInput))
      .addSuccess(TransferDocument, { status: 201 })
      .addSuccess(TransferDocument.annotations({ description: "The same `data.id` and body again" }), {
        status: 200
      })
      .addError(httpError(NotFound))
      .addError(httpError(Forbidden))
      .addError(httpError(KomunitinBadRequest))
      .addError(httpError(KomunitinInsufficientBalance))
      .addError(httpError(KomunitinConflict))
      .annotate(
        OpenApi.Description,
        "The payer is the partner's external account (`meta: {external: true, href}`; a local payer → 403 " +
          "`Forbidden`, both external → 400), the payee one of our opted-in members' accounts. `committed` " +
          "credits the member from the partner's clearing account at once; `new` waits for a PATCH. The same " +
          "`data.id` and body again → 200, credited once; a different body → 409 `Conflict`. Past the partner's " +
          "credit limit → 400 `InsufficientBalance`"
      )
      .middleware(KomunitinTransfersWrite)
  )
  .add(
    HttpApiEndpoint.patch("updateTransfer", `${FEDERATION}/transfers/:id`)
      .annotate(OpenApi.Summary, "Commit or delete a partner's transfer")
      .setPath(KomunitinResourcePath)
      .setPayload(jsonApi(KomunitinTransferUpdate))
      .addSuccess(TransferDocument)
      .addError(httpError(NotFound))
      .addError(httpError(KomunitinBadRequest))
      .addError(httpError(KomunitinTransactionError))
      .addError(httpError(KomunitinInsufficientBalance))
      .addError(httpError(KomunitinConflict))
      .annotate(
        OpenApi.Description,
        "`new` → `committed` (credits the member) or `deleted`; the state it has → 200 unchanged; any other move " +
          "→ 400 `TransactionError`. Amount, meta and parties do not change"
      )
      .middleware(KomunitinTransfersWrite)
  )
{}
