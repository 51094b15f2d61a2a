import type { ValidationIssue } from "@timebank/domain"
import { isUuid } from "../accounts/FederationAccounts.js"
import type { PartnerContext } from "./FederationProtocol.js"
import { answerJson, type PartnerResponse, quoteAnswer } from "./PartnerHttp.js"

/**
 * A `komunitin` partner's configuration and the shape of its answers (decisions D16; shared/federation/komunitin.md
 * §1, §7): settings `currency_code` (the partner's), `payer_account_id` (the Komunitin account that pays on our
 * side), `commit` (`direct` | `two_step`); credential `access_token` (a Komunitin-issued OAuth token).
 */

export type KomunitinCommit = "direct" | "two_step"

export interface KomunitinSettings {
  readonly currencyCode: string
  readonly payerAccountId: string
  readonly commit: KomunitinCommit
}

/** Komunitin's own currency code rule (`isUpdateCurrencyAttributes`). */
const CURRENCY_CODE = /^[A-Z0-9]{4}$/

export const JSON_API = "application/vnd.api+json"

/** What is wrong with a komunitin partner's settings, as 422 issues on `settings.<k>`. */
export const komunitinSettingsIssues = (
  settings: Readonly<Record<string, unknown>>
): ReadonlyArray<ValidationIssue> => {
  const issues: Array<ValidationIssue> = []
  const code = settings["currency_code"]
  if (code === undefined || code === null) {
    issues.push({ field: "settings.currency_code", message: "is required: the partner's 4-character currency code" })
  } else if (typeof code !== "string" || !CURRENCY_CODE.test(code)) {
    issues.push({
      field: "settings.currency_code",
      message: "must be the partner's currency code: 4 upper-case letters or digits (^[A-Z0-9]{4}$)"
    })
  }
  const payer = settings["payer_account_id"]
  if (payer === undefined || payer === null) {
    issues.push({
      field: "settings.payer_account_id",
      message: "is required: the UUID of the Komunitin account that pays on our side"
    })
  } else if (typeof payer !== "string" || !isUuid(payer)) {
    issues.push({
      field: "settings.payer_account_id",
      message: "must be a UUID (the id of a Komunitin account)"
    })
  }
  const commit = settings["commit"]
  if (commit !== undefined && commit !== "direct" && commit !== "two_step") {
    issues.push({ field: "settings.commit", message: "must be direct or two_step" })
  }
  return issues
}

/** The settings, or the first thing wrong with them (`settings.<k>: …`, or the missing credential). */
export const komunitinConfig = (
  context: PartnerContext
): { readonly settings: KomunitinSettings; readonly token: string } | { readonly problem: string } => {
  const [issue] = komunitinSettingsIssues(context.partner.settings)
  if (issue !== undefined) return { problem: `${issue.field}: ${issue.message}` }
  const token = context.credentials["access_token"]
  if (token === undefined || token === "") return { problem: "credentials.access_token is not set" }
  const s = context.partner.settings
  return {
    settings: {
      currencyCode: s["currency_code"] as string,
      payerAccountId: s["payer_account_id"] as string,
      commit: s["commit"] === "two_step" ? "two_step" : "direct"
    },
    token
  }
}

/** `<base_url>/<path>`: Komunitin's routes sit at the root of its base URL (no `/api/v1`). */
export const komunitinUrl = (baseUrl: string, path: string): string =>
  `${baseUrl.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`

/** The headers of an authenticated call (plus `content-type` when there is a body). */
export const komunitinHeaders = (token: string, withBody = false): Record<string, string> => ({
  accept: JSON_API,
  authorization: `Bearer ${token}`,
  ...(withBody ? { "content-type": JSON_API } : {})
})

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A Komunitin answer for people: its first JSON:API error (`HTTP 400 InsufficientBalance: …`) when it has one,
 * otherwise the answer's start, or why no answer came.
 */
export const quoteKomunitin = (response: PartnerResponse): string => {
  if (response.statusCode === null) return quoteAnswer(response)
  const json = answerJson(response)
  const errors = isObject(json) ? json["errors"] : undefined
  const first = Array.isArray(errors) ? errors[0] : undefined
  if (!isObject(first)) return quoteAnswer(response)
  const text = (key: string) => (typeof first[key] === "string" ? first[key] : undefined)
  const code = text("code")
  const said = text("detail") ?? text("title")
  if (code === undefined && said === undefined) return quoteAnswer(response)
  return `HTTP ${response.statusCode}${code === undefined ? "" : ` ${code}`}${said === undefined ? "" : `: ${said}`}`
}

/** `data` of a JSON:API answer, when it is one resource. */
export const resourceOf = (response: PartnerResponse): Record<string, unknown> | undefined => {
  const json = answerJson(response)
  const data = isObject(json) ? json["data"] : undefined
  return isObject(data) ? data : undefined
}

/** A string attribute of a JSON:API resource. */
export const attributeOf = (resource: Record<string, unknown> | undefined, name: string): string | undefined => {
  const attributes = resource === undefined ? undefined : resource["attributes"]
  const value = isObject(attributes) ? attributes[name] : undefined
  return typeof value === "string" ? value : undefined
}
