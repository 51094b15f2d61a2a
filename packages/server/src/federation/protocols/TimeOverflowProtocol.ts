import { AmountNotRepresentable, type ValidationIssue } from "@timebank/domain"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { signCanonical } from "../signing/FederationSignature.js"
import { answeredCheck, check, clockSkewCheck } from "./DiagnoseChecks.js"
import type {
  DiagnoseCheck,
  FederationProtocol,
  PartnerContext,
  TransferOutcome,
  WebhookDialect
} from "./FederationProtocol.js"
import { answerJson, isSuccess, partnerRequest, type PartnerResponse, quoteAnswer } from "./PartnerHttp.js"
import { transferTimeoutMs } from "./TransferTimeout.js"

/**
 * The `timeoverflow` adapter (decisions D16; shared/federation/timeoverflow.md): the TimeOverflow fork's federation
 * API. A member's transfer is `POST /api/v1/transfers` with the key TimeOverflow issued to us in
 * `X-Federation-Api-Key`, the amount in whole seconds, `partner_id` = TimeOverflow's own row id for us
 * (`settings.remote_partner_id`) and `direction: "inbound"` (TimeOverflow's organisation account credits its member).
 * It settles synchronously; a repeated `external_transaction_id` answers 200 with the first record. Our webhooks
 * reach it signed over `METHOD\nPATH\nTIMESTAMP\nBODY` (four parts, no nonce) with `webhook_secret`.
 */

export const TIMEOVERFLOW_CREDENTIALS = ["api_key", "webhook_secret"] as const

/** TimeOverflow's cap per transfer (`FEDERATION_MAX_TRANSFER_AMOUNT` default and the model's own limit). */
export const TIMEOVERFLOW_MAX_SECONDS = 360_000

/** One cent of an hour is 36 seconds: every amount we hold is a whole number of seconds. */
const SECONDS_PER_CENT = 36

const TRANSFERS_PATH = "/api/v1/transfers"
const HEALTH_PATH = "/api/v1/health"
/** Any valid key may read organisations (no permission needed): the lightest keyed read without side effects. */
const AUTH_PATH = "/api/v1/organizations?per_page=1"
const WEBHOOK_PATH = "/api/v1/webhooks/receive"

const trimmed = (baseUrl: string) => baseUrl.replace(/\/+$/, "")

/** TimeOverflow's row id for us, when the settings hold a valid one. */
const remotePartnerIdOf = (settings: Readonly<Record<string, unknown>>): number | undefined => {
  const id = settings["remote_partner_id"]
  return typeof id === "number" && Number.isSafeInteger(id) && id > 0 ? id : undefined
}

export const timeOverflowSettingsIssues = (
  settings: Readonly<Record<string, unknown>>
): ReadonlyArray<ValidationIssue> => {
  const id = settings["remote_partner_id"]
  if (id === undefined || id === null) {
    return [{
      field: "settings.remote_partner_id",
      message: "is required: the id of TimeOverflow's own partner record for this community"
    }]
  }
  return remotePartnerIdOf(settings) === undefined
    ? [{ field: "settings.remote_partner_id", message: "must be a whole number above 0" }]
    : []
}

/** Seconds of `cents` (hundredths of an hour), or why TimeOverflow cannot take them. */
export const secondsOfCents = (cents: number): { readonly seconds: number } | { readonly refused: string } => {
  const seconds = cents * SECONDS_PER_CENT
  if (!Number.isSafeInteger(seconds) || seconds <= 0) return { refused: "must be more than 0 hours" }
  return seconds > TIMEOVERFLOW_MAX_SECONDS
    ? {
      refused: `TimeOverflow takes at most ${TIMEOVERFLOW_MAX_SECONDS / 3600} hours ` +
        `(${TIMEOVERFLOW_MAX_SECONDS} seconds) per transfer; ${cents / 100} hours are ${seconds} seconds`
    }
    : { seconds }
}

/** Hex HMAC-SHA256 of `METHOD\nPATH\nTIMESTAMP\nBODY` (PATH with its query), as TimeOverflow verifies webhooks. */
export const timeOverflowSignature = (
  secret: string,
  parts: { readonly method: string; readonly path: string; readonly timestamp: string; readonly body: string }
) => signCanonical(secret, [parts.method.toUpperCase(), parts.path, parts.timestamp, parts.body].join("\n"))

const pathOf = (url: string): string | undefined => {
  try {
    const target = new URL(url)
    return `${target.pathname}${target.search}`
  } catch {
    return undefined
  }
}

/** TimeOverflow's webhook receiver under its base URL. */
const receiveUrlOf = (baseUrl: string) => `${trimmed(baseUrl)}${WEBHOOK_PATH}`

/** D13's body plus `partner_id`, which TimeOverflow reads (before verifying) to find its partner row for us. */
const webhook: WebhookDialect = {
  body: (partner, d13Body) => ({ ...d13Body, partner_id: remotePartnerIdOf(partner.partner.settings) ?? null }),
  defaultUrl: receiveUrlOf,
  headers: (partner, input) => {
    const secret = partner.credentials["webhook_secret"]
    const path = pathOf(input.url)
    if (secret === undefined || secret === "" || path === undefined) return undefined
    if (remotePartnerIdOf(partner.partner.settings) === undefined) return undefined
    const timestamp = String(Math.floor(input.nowMillis / 1000))
    return {
      "content-type": "application/json",
      "x-federation-webhook-id": input.webhookId,
      "x-federation-timestamp": timestamp,
      "x-federation-signature": timeOverflowSignature(secret, { method: "POST", path, timestamp, body: input.body })
    }
  }
}

/** Where our webhooks reach the partner: its `webhook_url`, else TimeOverflow's receive route. */
const webhookUrlOf = (partner: PartnerContext) => partner.partner.webhookUrl ?? receiveUrlOf(partner.partner.baseUrl)

const field = (value: unknown, name: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[name]
    : undefined

const failed = (httpStatus: number | null, detail: string, outcomeUnknown = false): TransferOutcome => ({
  _tag: "Failed",
  httpStatus,
  detail,
  outcomeUnknown
})

/**
 * TimeOverflow's answer to a transfer: 201 (created) or 200 (a replay of the same `external_transaction_id`) with
 * the record `completed` is done. A 2xx naming another status did not credit the member (`pending` may still).
 */
const outcomeOf = (response: PartnerResponse): TransferOutcome => {
  if (response.statusCode === null) {
    return failed(
      null,
      response.timedOut ? `${quoteAnswer(response)}; the outcome at TimeOverflow is unknown` : quoteAnswer(response),
      response.timedOut
    )
  }
  if (!isSuccess(response)) return failed(response.statusCode, quoteAnswer(response))
  const data = field(answerJson(response), "data")
  const status = field(data, "status")
  if (status !== undefined && status !== "completed") {
    return failed(response.statusCode, quoteAnswer(response), status === "pending")
  }
  const id = field(data, "federation_transaction_id")
  return { _tag: "Completed", remoteId: typeof id === "number" || typeof id === "string" ? String(id) : null }
}

const notTried = (name: DiagnoseCheck["name"], why: string) => check(name, false, `not tried: ${why}`)

/** The `webhook` check: a signed `health_check` event, answered as fixture 16 (`data.received: true`). */
const webhookCheck = (partner: PartnerContext, timeoutMs: number): Effect.Effect<DiagnoseCheck> => {
  if (remotePartnerIdOf(partner.partner.settings) === undefined) {
    return Effect.succeed(notTried("webhook", "settings.remote_partner_id is not set"))
  }
  const url = webhookUrlOf(partner)
  const webhookId = randomUUID()
  const body = JSON.stringify(webhook.body(partner, {
    id: webhookId,
    event: "health_check",
    tenant: { id: partner.community.id, slug: partner.community.slug },
    occurred_at: new Date().toISOString(),
    data: {}
  }))
  const headers = webhook.headers(partner, { url, body, webhookId, nowMillis: Date.now() })
  if (headers === undefined) return Effect.succeed(notTried("webhook", "the credential webhook_secret is not set"))
  return Effect.map(partnerRequest({ method: "POST", url, headers, body, timeoutMs }), (response) =>
    check(
      "webhook",
      isSuccess(response) && field(field(answerJson(response), "data"), "received") === true,
      `POST ${url}: ${quoteAnswer(response)}`
    ))
}

const sameOrigin = (a: string, b: string) => {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return true
  }
}

export const makeTimeOverflowProtocol: Effect.Effect<FederationProtocol> = Effect.gen(function*() {
  const timeoutMs = yield* transferTimeoutMs

  const send: FederationProtocol["send"] = (partner, transfer, prepared) => {
    const apiKey = partner.credentials["api_key"]
    const remotePartnerId = remotePartnerIdOf(partner.partner.settings)
    if (apiKey === undefined || apiKey === "") return Effect.succeed(failed(null, "the credential api_key is not set"))
    if (remotePartnerId === undefined) {
      return Effect.succeed(failed(null, "settings.remote_partner_id is not set"))
    }
    const body = JSON.stringify({
      partner_id: remotePartnerId,
      external_transaction_id: transfer.uuid,
      direction: "inbound",
      local_account_id: Number(transfer.recipient),
      remote_user_identifier: transfer.sender.accountCode,
      amount: Number(prepared.remoteAmount),
      reason: transfer.description
    })
    return Effect.map(
      partnerRequest({
        method: "POST",
        url: `${trimmed(partner.partner.baseUrl)}${TRANSFERS_PATH}`,
        headers: { "accept": "application/json", "content-type": "application/json", "x-federation-api-key": apiKey },
        body,
        timeoutMs
      }),
      outcomeOf
    )
  }

  const diagnose: FederationProtocol["diagnose"] = (partner) =>
    Effect.gen(function*() {
      const base = trimmed(partner.partner.baseUrl)
      const health = yield* partnerRequest({
        method: "GET",
        url: `${base}${HEALTH_PATH}`,
        headers: { accept: "application/json" },
        timeoutMs
      })
      const reachable = health.statusCode !== null
      const apiKey = partner.credentials["api_key"]
      const auth = !reachable
        ? Effect.succeed(notTried("auth", `${HEALTH_PATH} did not answer`))
        : apiKey === undefined || apiKey === ""
        ? Effect.succeed(notTried("auth", "the credential api_key is not set"))
        : Effect.map(
          partnerRequest({
            method: "GET",
            url: `${base}${AUTH_PATH}`,
            headers: { "accept": "application/json", "x-federation-api-key": apiKey },
            timeoutMs
          }),
          (response) => answeredCheck("auth", response)
        )
      // A webhook URL on the base URL's host is not tried when that host did not answer.
      const hook = !reachable && sameOrigin(webhookUrlOf(partner), base)
        ? Effect.succeed(notTried("webhook", `${HEALTH_PATH} did not answer`))
        : webhookCheck(partner, timeoutMs)
      const [authCheck, webhookResult] = yield* Effect.all([auth, hook], { concurrency: 2 })
      return [
        answeredCheck("reachability", health),
        authCheck,
        webhookResult,
        clockSkewCheck(health)
      ]
    })

  return {
    name: "timeoverflow",
    requiredCredentials: TIMEOVERFLOW_CREDENTIALS,
    optionalCredentials: [],
    settingsIssues: timeOverflowSettingsIssues,
    recipientIssue: (recipient) =>
      /^[1-9][0-9]{0,14}$/.test(recipient)
        ? undefined
        : "must be a TimeOverflow account id: digits, more than 0",
    prepare: (_partner, transfer) => {
      const converted = secondsOfCents(transfer.cents)
      return "refused" in converted
        ? Effect.fail(new AmountNotRepresentable({ message: converted.refused, field: "amount" }))
        : Effect.succeed({ remoteAmount: String(converted.seconds) })
    },
    send,
    diagnose,
    webhook
  }
})
