import { CurrentTenant, fromCents } from "@timebank/domain"
import { Effect, Option } from "effect"
import { TenantDirectory } from "../../tenancy/TenantDirectory.js"
import { type ChainStep, CreditCommonsChains } from "../creditcommons/CreditCommonsChains.js"
import {
  ccRecipientIssue,
  ccSettingsIssues,
  ccSettingsOf,
  type CreditCommonsSettings
} from "../creditcommons/CreditCommonsSettings.js"
import { nextHash } from "../creditcommons/HashChain.js"
import { nodeNameOf } from "../creditcommons/RelayPlan.js"
import { check, clockSkewCheck, reachabilityCheck } from "./DiagnoseChecks.js"
import {
  type FederationProtocol,
  type OutboundTransfer,
  type PartnerContext,
  PartnerUnreachable,
  type TransferOutcome
} from "./FederationProtocol.js"
import { answerJson, isSuccess, partnerRequest, type PartnerResponse, quoteAnswer } from "./PartnerHttp.js"
import { transferTimeoutMs } from "./TransferTimeout.js"

/** The workflow Komunitin sends and accepts: the payer's relay completes at once (`_C-`). */
export const CC_WORKFLOW = "|P-PC+CX+"

/** What a partner needs before we can relay to it: its node paths and the agreed seed. */
interface Grafted {
  readonly paths: CreditCommonsSettings
  readonly seed: string
}

const graftedOf = (partner: PartnerContext): Grafted | string => {
  const paths = ccSettingsOf(partner.partner.settings)
  if (paths === undefined) return "the partner's settings lack our_node_path or peer_node_path"
  const seed = partner.credentials["hash_seed"]
  if (seed === undefined || seed === "") return "the partner has no credentials.hash_seed"
  return { paths, seed }
}

const baseOf = (partner: PartnerContext) => partner.partner.baseUrl.replace(/\/+$/, "")

/** The relay Komunitin's own outbound sends (`createCreditCommonsTransfer`), for one of our members. */
export const outboundRelay = (ourNodePath: string, transfer: OutboundTransfer) => ({
  version: 1,
  uuid: transfer.uuid,
  state: "V",
  workflow: CC_WORKFLOW,
  entries: [{
    payee: transfer.recipient,
    payer: `${ourNodePath}/${transfer.sender.accountCode}`,
    quant: fromCents(transfer.cents),
    description: transfer.description,
    metadata: {}
  }]
})

const failed = (response: PartnerResponse, outcomeUnknown: boolean, note?: string): TransferOutcome => ({
  _tag: "Failed",
  httpStatus: response.statusCode,
  detail: note === undefined ? quoteAnswer(response) : `${quoteAnswer(response)}; ${note}`,
  outcomeUnknown
})

/** Whether a 401 says the node took our `cc-node` and only the hash differs (Komunitin checks in that order). */
const onlyHashRefused = (response: PartnerResponse) => {
  const body = answerJson(response) as { readonly errors?: ReadonlyArray<unknown> } | undefined
  return response.statusCode === 401 &&
    (body?.errors ?? []).some((e) => typeof e === "string" && e.startsWith("value of last-hash header"))
}

/**
 * Credit Commons as Komunitin speaks it (decisions D16): `POST <base_url>/transaction/relay` with `cc-node` (the last
 * segment of our node path) and `last-hash`; a 2xx advances our chain with that partner, under the chain's lock
 * (the same lock inbound relays take). Amounts are hours as JSON numbers.
 */
export const makeCreditCommonsProtocol = Effect.gen(function*() {
  const chains = yield* CreditCommonsChains
  const tenants = yield* TenantDirectory
  const timeoutMs = yield* transferTimeoutMs
  // After a relay that got no answer, two reads of the partner's chain; together they stay within half the timeout.
  const probeTimeoutMs = Math.max(1_000, Math.round(timeoutMs / 4))

  /** Runs `effect` in the partner's community (the chain's queries are scoped to it). */
  const inCommunity = <A>(partner: PartnerContext, effect: Effect.Effect<A, never, CurrentTenant>) =>
    Effect.flatMap(
      tenants.findById(partner.partner.tenantId),
      Option.match({
        onNone: () => Effect.dieMessage(`community ${partner.partner.tenantId} of a partner not found`),
        onSome: (tenant) => Effect.provideService(effect, CurrentTenant, tenant)
      })
    )

  /** `GET <base>/` with our node name and `hash`: a read that has no effect at the partner. */
  const welcome = (partner: PartnerContext, grafted: Grafted, hash: string, timeout?: number) =>
    partnerRequest({
      method: "GET",
      url: `${baseOf(partner)}/`,
      headers: { accept: "application/json", "cc-node": nodeNameOf(grafted.paths.ourNodePath), "last-hash": hash },
      ...(timeout === undefined ? {} : { timeoutMs: timeout })
    })

  const send = (partner: PartnerContext, transfer: OutboundTransfer) =>
    Effect.gen(function*() {
      const grafted = graftedOf(partner)
      if (typeof grafted === "string") {
        return { _tag: "Failed", httpStatus: null, detail: grafted, outcomeUnknown: false } satisfies TransferOutcome
      }
      const relay = outboundRelay(grafted.paths.ourNodePath, transfer)
      const step = (lastHash: string) =>
        Effect.gen(function*() {
          const hashAfter = nextHash(lastHash, relay)
          const completed: ChainStep<TransferOutcome> = {
            result: { _tag: "Completed", remoteId: relay.uuid },
            advance: {
              uuid: relay.uuid,
              direction: "out",
              hashAfter,
              body: relay,
              localUserId: transfer.sender.userId,
              netCents: -transfer.cents,
              transactionId: null
            }
          }
          const response = yield* partnerRequest({
            method: "POST",
            url: `${baseOf(partner)}/transaction/relay`,
            headers: {
              "content-type": "application/json",
              accept: "application/json",
              "cc-node": nodeNameOf(grafted.paths.ourNodePath),
              "last-hash": lastHash
            },
            body: JSON.stringify(relay),
            timeoutMs
          })
          if (isSuccess(response)) return completed
          if (!response.timedOut) return { result: failed(response, false) }
          // No answer came, but the relay went out: the partner's chain says whether it took it.
          if (isSuccess(yield* welcome(partner, grafted, hashAfter, probeTimeoutMs))) return completed
          const untouched = isSuccess(yield* welcome(partner, grafted, lastHash, probeTimeoutMs))
          return {
            result: untouched
              ? failed(response, false, "the partner still holds our last hash: it did not take the relay")
              : failed(response, true, "the partner's hash could not be read: it may have taken the relay")
          }
        })
      return yield* inCommunity(partner, chains.withChain({ partnerId: partner.partner.id, seed: grafted.seed }, step))
    })

  const diagnose = (partner: PartnerContext) =>
    Effect.gen(function*() {
      const grafted = graftedOf(partner)
      if (typeof grafted === "string") {
        const answer = yield* partnerRequest({ method: "GET", url: `${baseOf(partner)}/` })
        return [
          reachabilityCheck(answer),
          check("auth", false, grafted),
          check("hash_chain", false, grafted),
          clockSkewCheck(answer)
        ]
      }
      const hash = yield* inCommunity(
        partner,
        chains.currentHash({ partnerId: partner.partner.id, seed: grafted.seed })
      )
      const answer = yield* welcome(partner, grafted, hash)
      const quoted = quoteAnswer(answer)
      const nodeTaken = isSuccess(answer) || onlyHashRefused(answer)
      return [
        reachabilityCheck(answer),
        check("auth", nodeTaken, quoted),
        check(
          "hash_chain",
          isSuccess(answer),
          isSuccess(answer) ? `last-hash ${hash} accepted; ${quoted}` : `last-hash ${hash} refused; ${quoted}`
        ),
        clockSkewCheck(answer)
      ]
    })

  return {
    name: "credit_commons",
    requiredCredentials: ["hash_seed"],
    optionalCredentials: [],
    settingsIssues: ccSettingsIssues,
    recipientIssue: ccRecipientIssue,
    prepare: (partner, transfer) => {
      const grafted = graftedOf(partner)
      return typeof grafted === "string"
        ? Effect.fail(new PartnerUnreachable(null, grafted))
        : Effect.succeed({ remoteAmount: String(fromCents(transfer.cents)) })
    },
    send: (partner, transfer) => send(partner, transfer),
    diagnose
  } satisfies FederationProtocol
})
