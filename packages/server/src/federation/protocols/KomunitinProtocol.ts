import { AmountNotRepresentable } from "@timebank/domain"
import { Effect } from "effect"
import { isUuid } from "../accounts/FederationAccounts.js"
import type {
  FederationProtocol,
  OutboundTransfer,
  PartnerContext,
  PreparedTransfer,
  TransferOutcome
} from "./FederationProtocol.js"
import { PartnerUnreachable } from "./FederationProtocol.js"
import { diagnoseKomunitin } from "./KomunitinDiagnose.js"
import {
  attributeOf,
  komunitinConfig,
  komunitinHeaders,
  komunitinSettingsIssues,
  komunitinUrl,
  quoteKomunitin,
  resourceOf
} from "./KomunitinSettings.js"
import { readCurrency, unitsOfCents } from "./KomunitinUnits.js"
import { answerJson, isSuccess, partnerRequest, type PartnerResponse } from "./PartnerHttp.js"
import { transferTimeoutMs } from "./TransferTimeout.js"

/**
 * The `komunitin` adapter (decisions D16; shared/federation/komunitin.md): a member's transfer becomes a JSON:API
 * `transfers` resource posted to `<base_url>/<CODE>/transfers` with the partner-issued bearer token, paid from
 * `payer_account_id` to the recipient's account UUID. The amount is the partner's currency units, read from
 * `/<CODE>/currency` before any money moves. `commit: two_step` creates the transfer `new` and commits it with a
 * PATCH. Komunitin sends no webhooks to partners, so there is no webhook dialect.
 */

const failed = (httpStatus: number | null, detail: string, outcomeUnknown = false): TransferOutcome => ({
  _tag: "Failed",
  httpStatus,
  detail,
  outcomeUnknown
})

/** States from which Komunitin may still commit the transfer on its own (a payer's approval, the ledger). */
const UNSETTLED = new Set(["pending", "submitted"])

/**
 * How one call went: undefined when Komunitin answered 2xx with the transfer in `expected` state (or no state),
 * otherwise the failure. A call that went out and got no answer leaves the outcome unknown.
 */
const failureOf = (response: PartnerResponse, expected: string, step: string): TransferOutcome | undefined => {
  if (response.statusCode === null) {
    const unknown = response.timedOut ? "; the outcome at the partner is unknown" : ""
    return failed(null, `${step}${quoteKomunitin(response)}${unknown}`, response.timedOut)
  }
  if (!isSuccess(response)) return failed(response.statusCode, `${step}${quoteKomunitin(response)}`)
  const state = attributeOf(resourceOf(response), "state")
  if (state !== undefined && state !== expected) {
    return failed(
      response.statusCode,
      `${step}Komunitin answered HTTP ${response.statusCode} with the transfer in state "${state}", not "${expected}"`,
      UNSETTLED.has(state)
    )
  }
  return undefined
}

/** The id Komunitin gave the transfer (ours, since we choose it), as its answer says. */
const remoteIdOf = (response: PartnerResponse, fallback: string): string => {
  const id = resourceOf(response)?.["id"]
  return typeof id === "string" && id !== "" ? id : fallback
}

/** The create body: exactly the fields Komunitin's validator takes, `meta` an object (komunitin.md §3). */
const transferDocument = (
  transfer: OutboundTransfer,
  units: string,
  payerAccountId: string,
  state: "new" | "committed"
) => ({
  data: {
    type: "transfers",
    id: transfer.uuid,
    attributes: {
      amount: Number(units),
      meta: { description: transfer.description },
      state
    },
    relationships: {
      payer: { data: { type: "accounts", id: payerAccountId } },
      payee: { data: { type: "accounts", id: transfer.recipient } }
    }
  }
})

const prepare = (timeoutMs: number) =>
(
  context: PartnerContext,
  transfer: OutboundTransfer
): Effect.Effect<PreparedTransfer, AmountNotRepresentable | PartnerUnreachable> =>
  Effect.gen(function*() {
    const config = komunitinConfig(context)
    if ("problem" in config) return yield* Effect.fail(new PartnerUnreachable(null, config.problem))
    const path = `/${config.settings.currencyCode}/currency`
    const response = yield* partnerRequest({
      method: "GET",
      url: komunitinUrl(context.partner.baseUrl, path),
      headers: komunitinHeaders(config.token),
      timeoutMs
    })
    if (!isSuccess(response)) {
      return yield* Effect.fail(new PartnerUnreachable(response.statusCode, `GET ${path}: ${quoteKomunitin(response)}`))
    }
    const currency = readCurrency(answerJson(response))
    if ("problem" in currency) {
      return yield* Effect.fail(
        new PartnerUnreachable(response.statusCode, `GET ${path}: not a Komunitin currency (${currency.problem})`)
      )
    }
    const units = unitsOfCents(transfer.cents, { ...currency, code: currency.code || config.settings.currencyCode })
    if (units._tag === "NotRepresentable") {
      return yield* Effect.fail(new AmountNotRepresentable({ message: units.reason, field: "amount" }))
    }
    return {
      remoteAmount: String(units.units),
      detail: { scale: currency.scale, rate: currency.rate }
    } satisfies PreparedTransfer
  })

const send = (timeoutMs: number) =>
(
  context: PartnerContext,
  transfer: OutboundTransfer,
  prepared: PreparedTransfer
): Effect.Effect<TransferOutcome> =>
  Effect.gen(function*() {
    const config = komunitinConfig(context)
    if ("problem" in config) return failed(null, config.problem)
    const { commit, currencyCode, payerAccountId } = config.settings
    const state = commit === "direct" ? "committed" : "new"
    const created = yield* partnerRequest({
      method: "POST",
      url: komunitinUrl(context.partner.baseUrl, `/${currencyCode}/transfers`),
      headers: komunitinHeaders(config.token, true),
      body: JSON.stringify(transferDocument(transfer, prepared.remoteAmount, payerAccountId, state)),
      timeoutMs
    })
    const createFailure = failureOf(created, state, "")
    if (createFailure !== undefined) return createFailure
    const remoteId = remoteIdOf(created, transfer.uuid)
    if (commit === "direct") return { _tag: "Completed", remoteId } satisfies TransferOutcome

    const path = `/${currencyCode}/transfers/${remoteId}`
    const committed = yield* partnerRequest({
      method: "PATCH",
      url: komunitinUrl(context.partner.baseUrl, path),
      headers: komunitinHeaders(config.token, true),
      body: JSON.stringify({ data: { attributes: { state: "committed" } } }),
      timeoutMs
    })
    const commitFailure = failureOf(committed, "committed", `created as new, then PATCH ${path}: `)
    return commitFailure ?? { _tag: "Completed", remoteId }
  })

export const makeKomunitinProtocol: Effect.Effect<FederationProtocol> = Effect.map(transferTimeoutMs, (timeoutMs) => ({
  name: "komunitin",
  requiredCredentials: ["access_token"],
  optionalCredentials: ["komunitin_public_keys"],
  settingsIssues: komunitinSettingsIssues,
  recipientIssue: (recipient) =>
    isUuid(recipient) ? undefined : "must be the UUID of the recipient's Komunitin account",
  prepare: prepare(timeoutMs),
  send: send(timeoutMs),
  diagnose: diagnoseKomunitin
}))
