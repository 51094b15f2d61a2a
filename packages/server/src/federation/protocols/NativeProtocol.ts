import { NATIVE_CREDENTIAL_KEYS } from "@timebank/domain"
import { Effect, Option } from "effect"
import { randomUUID } from "node:crypto"
import { type OutboundCredentials, outboundCredentials, platformIdOf } from "../outbound/SignedPost.js"
import { signedHeaders } from "../signing/FederationSignature.js"
import { answeredCheck, check, clockSkewCheck, reachabilityCheck } from "./DiagnoseChecks.js"
import type { FederationProtocol, PartnerContext, TransferOutcome, WebhookDialect } from "./FederationProtocol.js"
import { answerJson, isSuccess, type PartnerRequest, partnerRequest, quoteAnswer } from "./PartnerHttp.js"
import { transferTimeoutMs } from "./TransferTimeout.js"

/**
 * A partner that speaks our own federation API (decisions D13, D16): another timebank, or a NEXUS-style platform.
 * Its credentials are the key it issued to us and that key's signing secret; every call carries the key as bearer
 * and the four `X-Federation-*` headers, signed with the secret, our platform id being the key's first 12
 * characters. Recipients are the partner's member ids; amounts are hours.
 */

const TRANSACTIONS_PATH = "/api/v1/federation/transactions"

const MISSING_CREDENTIALS = "the partner's credentials api_key and signing_secret are not both set"

const urlOf = (partner: PartnerContext, path: string) => `${partner.partner.baseUrl.replace(/\/+$/, "")}${path}`

/** `PATH?QUERY` of a URL, as the signature covers it; undefined for a URL that does not parse. */
const signedPathOf = (url: string): string | undefined => {
  try {
    const target = new URL(url)
    return `${target.pathname}${target.search}`
  } catch {
    return undefined
  }
}

/** Bearer and the D13 signature of one request (`body` exactly as sent; empty for a GET). */
const authHeaders = (
  credentials: OutboundCredentials,
  request: { readonly method: string; readonly path: string; readonly body: string; readonly nowMillis: number }
): Record<string, string> => ({
  "authorization": `Bearer ${credentials.apiKey}`,
  ...signedHeaders({
    secret: credentials.signingSecret,
    platformId: platformIdOf(credentials),
    method: request.method,
    path: request.path,
    body: request.body,
    nonce: randomUUID(),
    nowMillis: request.nowMillis
  })
})

/** One signed call to the partner; none when it has no credentials to sign with or its URL does not parse. */
const signedCall = (
  partner: PartnerContext,
  input: { readonly method: PartnerRequest["method"]; readonly path: string; readonly body?: string },
  timeoutMs: number
) => {
  const credentials = outboundCredentials(partner.credentials)
  const url = urlOf(partner, input.path)
  const path = signedPathOf(url)
  if (Option.isNone(credentials) || path === undefined) return Effect.succeedNone
  const body = input.body ?? ""
  return Effect.asSome(partnerRequest({
    method: input.method,
    url,
    headers: {
      "accept": "application/json",
      ...(input.body === undefined ? {} : { "content-type": "application/json" }),
      ...authHeaders(credentials.value, { method: input.method, path, body, nowMillis: Date.now() })
    },
    ...(input.body === undefined ? {} : { body }),
    timeoutMs
  }))
}

/** The partner's id of the credit: `data.id` (our own API) or NEXUS's top-level `transaction_id`. */
const remoteIdOf = (answer: unknown): string | null => {
  if (typeof answer !== "object" || answer === null) return null
  const record = answer as Record<string, unknown>
  const data = record["data"]
  const id = typeof data === "object" && data !== null ? (data as Record<string, unknown>)["id"] : undefined
  const found = id ?? record["transaction_id"]
  return typeof found === "string" || typeof found === "number" ? String(found) : null
}

/** What outbound/SignedPost.ts sends with each webhook: D13's body as is, bearer, webhook id and the signature. */
const nativeWebhook: WebhookDialect = {
  body: (_partner, d13Body) => d13Body,
  headers: (partner, input) => {
    const credentials = outboundCredentials(partner.credentials)
    const path = signedPathOf(input.url)
    if (Option.isNone(credentials) || path === undefined) return undefined
    return {
      "content-type": "application/json",
      "x-federation-webhook-id": input.webhookId,
      ...authHeaders(credentials.value, { method: "POST", path, body: input.body, nowMillis: input.nowMillis })
    }
  }
}

export const makeNativeProtocol: Effect.Effect<FederationProtocol> = Effect.gen(function*() {
  const timeoutMs = yield* transferTimeoutMs

  const send: FederationProtocol["send"] = (partner, transfer) => {
    const body = JSON.stringify({
      external_id: transfer.uuid,
      recipient_id: Number(transfer.recipient),
      amount: transfer.cents / 100,
      description: transfer.description,
      sender: { name: transfer.sender.name, external_id: transfer.sender.accountCode }
    })
    return Effect.map(
      signedCall(partner, { method: "POST", path: TRANSACTIONS_PATH, body }, timeoutMs),
      Option.match({
        onNone: (): TransferOutcome => ({
          _tag: "Failed",
          httpStatus: null,
          detail: MISSING_CREDENTIALS,
          outcomeUnknown: false
        }),
        onSome: (response): TransferOutcome =>
          isSuccess(response)
            ? { _tag: "Completed", remoteId: remoteIdOf(answerJson(response)) }
            : {
              _tag: "Failed",
              httpStatus: response.statusCode,
              detail: response.timedOut
                ? `${quoteAnswer(response)}; the outcome at the partner is unknown`
                : quoteAnswer(response),
              outcomeUnknown: response.timedOut
            }
      })
    )
  }

  return {
    name: "native",
    requiredCredentials: NATIVE_CREDENTIAL_KEYS,
    optionalCredentials: [],
    settingsIssues: () => [],
    recipientIssue: (recipient) =>
      /^[1-9][0-9]{0,14}$/.test(recipient)
        ? undefined
        : "must be the partner's member id: digits, more than 0",
    // Hours with at most 2 decimals, as our API and the partner's both take them: every amount is representable.
    prepare: (_partner, transfer) => Effect.succeed({ remoteAmount: String(transfer.cents / 100) }),
    send,
    // A signed read of one transaction: it reaches the partner, proves the key and the signature, and shows its
    // clock, without changing anything there.
    diagnose: (partner) =>
      Effect.map(
        signedCall(partner, { method: "GET", path: `${TRANSACTIONS_PATH}?per_page=1` }, timeoutMs),
        Option.match({
          onNone: () => [
            check("reachability", false, MISSING_CREDENTIALS),
            check("auth", false, MISSING_CREDENTIALS),
            check("clock_skew", false, MISSING_CREDENTIALS)
          ],
          onSome: (response) => [
            reachabilityCheck(response),
            answeredCheck("auth", response),
            clockSkewCheck(response)
          ]
        })
      ),
    webhook: nativeWebhook
  }
})
