import { Effect } from "effect"
import { check, clockSkewCheck, reachabilityCheck } from "./DiagnoseChecks.js"
import type { DiagnoseCheck, DiagnoseCheckName, PartnerContext } from "./FederationProtocol.js"
import {
  attributeOf,
  JSON_API,
  komunitinConfig,
  komunitinHeaders,
  komunitinUrl,
  quoteKomunitin,
  resourceOf
} from "./KomunitinSettings.js"
import { currencyTerms, readCurrency, unitsOfCents } from "./KomunitinUnits.js"
import { answerJson, isSuccess, partnerRequest, type PartnerResponse, quoteAnswer } from "./PartnerHttp.js"

/**
 * The D16 checks of a `komunitin` partner, in D16's order: `reachability` (`GET <base>/`), `currency` (0.01 h must
 * be a whole number of its units), `auth` (a read with the access token: the first transfer of the list),
 * `account` (`payer_account_id` exists and is active), `clock_skew` (the `Date` of the first answer). Only reads.
 */
export const diagnoseKomunitin = (context: PartnerContext): Effect.Effect<ReadonlyArray<DiagnoseCheck>> =>
  Effect.gen(function*() {
    const base = context.partner.baseUrl
    const root = yield* partnerRequest({ method: "GET", url: komunitinUrl(base, "/"), headers: { accept: JSON_API } })
    const reachability = reachabilityCheck(root)
    const notChecked = (names: ReadonlyArray<DiagnoseCheckName>, why: string) =>
      names.map((name) => check(name, false, `not checked: ${why}`))

    if (root.statusCode === null) {
      return [reachability, ...notChecked(["currency", "auth", "account"], quoteAnswer(root)), clockSkewCheck(root)]
    }
    const config = komunitinConfig(context)
    if ("problem" in config) {
      return [reachability, ...notChecked(["currency", "auth", "account"], config.problem), clockSkewCheck(root)]
    }
    const { currencyCode, payerAccountId } = config.settings
    const get = (path: string) =>
      partnerRequest({ method: "GET", url: komunitinUrl(base, path), headers: komunitinHeaders(config.token) })

    const currency = currencyCheck(yield* get(`/${currencyCode}/currency`), currencyCode)
    const transfers = yield* get(`/${currencyCode}/transfers?page[size]=1`)
    const auth = check(
      "auth",
      isSuccess(transfers),
      isSuccess(transfers)
        ? `HTTP ${transfers.statusCode}: the access token reads /${currencyCode}/transfers`
        : quoteKomunitin(transfers)
    )
    const account = accountCheck(yield* get(`/${currencyCode}/accounts/${payerAccountId}`), payerAccountId)
    return [reachability, currency, auth, account, clockSkewCheck(root)]
  })

/** The currency must be active, and 0.01 h (our smallest amount) a whole number of its units. */
const currencyCheck = (response: PartnerResponse, code: string): DiagnoseCheck => {
  if (!isSuccess(response)) return check("currency", false, quoteKomunitin(response))
  const currency = readCurrency(answerJson(response))
  if ("problem" in currency) {
    return check("currency", false, `not a Komunitin currency (${currency.problem}): ${quoteAnswer(response)}`)
  }
  const named = { ...currency, code: currency.code || code }
  const terms = `${named.code} (${currencyTerms(named)})`
  if (currency.status !== undefined && currency.status !== "active") {
    return check("currency", false, `${terms} has status ${currency.status}, not active`)
  }
  const hundredth = unitsOfCents(1, named)
  return hundredth._tag === "Units"
    ? check("currency", true, `${terms}: 0.01 h = ${hundredth.units} units`)
    : check("currency", false, `${hundredth.reason}, so at scale ${currency.scale} our 0.01 h cannot be sent`)
}

/** `payer_account_id` is an account of the currency, and active. */
const accountCheck = (response: PartnerResponse, accountId: string): DiagnoseCheck => {
  if (!isSuccess(response)) return check("account", false, quoteKomunitin(response))
  const resource = resourceOf(response)
  const id = resource?.["id"]
  if (typeof id !== "string" || id.toLowerCase() !== accountId.toLowerCase()) {
    return check("account", false, `the answer is not account ${accountId}: ${quoteAnswer(response)}`)
  }
  const code = attributeOf(resource, "code") ?? "(no code)"
  const status = attributeOf(resource, "status")
  if (status !== undefined && status !== "active") {
    return check("account", false, `account ${code} (${id}) has status ${status}, not active`)
  }
  return check("account", true, `account ${code} (${id})${status === undefined ? "" : `, status ${status}`}`)
}
