import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "@effect/platform"
import { Schema } from "effect"
import { DataEnvelope } from "../http/Envelope.js"
import { Authentication } from "../identity/Authentication.js"
import { TenantMiddleware } from "../tenancy/TenancyApi.js"

/** A currency code a tenant admin may set (decisions D16): a letter, then three letters or digits. */
export const CURRENCY_CODE_PATTERN = /^[A-Z][A-Z0-9]{3}$/

/** What `{CODE}` in a federation path may look like (a default code may start with a digit). */
export const CURRENCY_PATH_PATTERN = /^[A-Z0-9]{4}$/

export const CurrencyCode = Schema.String.pipe(
  Schema.pattern(CURRENCY_CODE_PATTERN, {
    message: () => "must be 4 characters: an upper-case letter, then upper-case letters or digits"
  })
).annotations({ description: "The community's currency code towards partners, e.g. `TIME`" })

/** A community's code until its admins set one: its id in base 36, upper case, `0`-padded to 4 (`0000`–`ZZZZ`). */
export const defaultCurrencyCode = (tenantId: number) => tenantId.toString(36).toUpperCase().padStart(4, "0")

/** The tenant whose default code `code` is, if it is one. */
export const tenantIdOfDefaultCode = (code: string): number | undefined =>
  CURRENCY_PATH_PATTERN.test(code) ? parseInt(code, 36) : undefined

/** A member's account code: the currency code and the user id, at least 4 digits (`TIME0042`). */
export const accountCodeOf = (currencyCode: string, userId: number) =>
  `${currencyCode}${String(userId).padStart(4, "0")}`

/** The user id an account code names in `currencyCode`, if it is one of its codes. */
export const userIdOfAccountCode = (currencyCode: string, accountCode: string): number | undefined => {
  if (!accountCode.startsWith(currencyCode)) return undefined
  const digits = accountCode.slice(currencyCode.length)
  if (!/^\d{4,15}$/.test(digits)) return undefined
  const id = Number(digits)
  return id > 0 && accountCodeOf(currencyCode, id) === accountCode ? id : undefined
}

/** The member's federation account, as partners address it (decisions D16). */
export class FederationAccount extends Schema.Class<FederationAccount>("FederationAccount")({
  currency_code: Schema.String.annotations({ description: "The community's currency code" }),
  account_id: Schema.UUID.annotations({ description: "The account's UUID (Komunitin partners pay to it)" }),
  account_code: Schema.String.annotations({ description: "`currency_code` + the member's id, at least 4 digits" }),
  href: Schema.String.annotations({
    description: "Where partners read the account: `…/api/v1/federation/{CODE}/accounts/{account_id}`"
  })
}) {}

/** A member's own federation account (decisions D16). */
export class FederationAccountApi extends HttpApiGroup.make("federationAccount")
  .annotate(OpenApi.Title, "Federation: my account")
  .annotate(
    OpenApi.Description,
    "The member's account as partner platforms address it: a UUID, and a code made of the community's currency code " +
      "and the member's id"
  )
  .add(
    HttpApiEndpoint.get("get", "/api/v2/federation/account")
      .annotate(OpenApi.Summary, "Get my federation account")
      .annotate(
        OpenApi.Description,
        "The calling member's account as partners address it: made on first use, the same ever after. Partners " +
          "see it only while the member is opted in to federation"
      )
      .addSuccess(DataEnvelope(FederationAccount))
  )
  .middleware(Authentication)
  .middleware(TenantMiddleware)
{}
