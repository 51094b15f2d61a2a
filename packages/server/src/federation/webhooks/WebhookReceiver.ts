import { CurrentTenant, FederationCaller, type ReceivedWebhook, type WebhookReceipt } from "@timebank/domain"
import { Effect } from "effect"
import { TenantSql } from "../../platform/TenantSql.js"
import { FederatedIngest } from "../ingest/FederatedIngest.js"
import { FederatedTransactions } from "../transactions/FederatedTransactions.js"
import { planOf } from "./WebhookPlan.js"
import { WebhookReceiptsRepo } from "./WebhookReceiptsRepo.js"

const received = (handled: boolean): WebhookReceipt => ({ received: true, handled })
const duplicate: WebhookReceipt = { received: true, duplicate: true }

/**
 * `POST /api/v1/federation/webhooks/receive` (decisions D13, D13a): a partner's webhook, deduplicated per key on its
 * `id`. The receipt row (INSERT … ON CONFLICT DO NOTHING) decides who handles a webhook sent twice at once.
 *
 * - Shared records and their retractions are written in the receipt's transaction: a failed handling leaves the
 *   webhook unreceived, and the partner's retry handles it then.
 * - `transaction.cancelled` refunds through the Ledger entity, which commits on its own; it runs before the receipt
 *   is written, and its ledger key `federation-refund:<partner>:<external_id>` makes it happen once whatever runs
 *   twice (a retry after a crash, two copies at once, two webhook ids naming one transaction). A refund the member's
 *   balance cannot pay is 422 `INSUFFICIENT_BALANCE` and leaves the webhook unreceived; an unknown `external_id` is
 *   received with `handled: false`.
 * - A key bound to no partner has nothing to act on: every event is received with `handled: false`.
 */
export class WebhookReceiver extends Effect.Service<WebhookReceiver>()("WebhookReceiver", {
  dependencies: [
    TenantSql.Default,
    WebhookReceiptsRepo.Default,
    FederatedIngest.Default,
    FederatedTransactions.Default
  ],
  effect: Effect.gen(function*() {
    const db = yield* TenantSql
    const receipts = yield* WebhookReceiptsRepo
    const ingest = yield* FederatedIngest
    const transactions = yield* FederatedTransactions

    const receive = (webhook: ReceivedWebhook) =>
      Effect.gen(function*() {
        const caller = yield* FederationCaller
        // `WebhooksSigned` takes only HMAC-signed requests, so there is always a key (never a Komunitin token).
        const keyId = caller.keyId ?? (yield* Effect.dieMessage("a signed webhook without an API key"))
        const plan = yield* planOf(webhook)
        const receipt = { keyId, webhookId: webhook.id, event: webhook.event }
        const claim = (handled: boolean) =>
          Effect.map(receipts.claim({ ...receipt, handled }), (won) => (won ? received(handled) : duplicate))
        const partnerId = caller.partnerId

        const answer = Effect.gen(function*() {
          if (partnerId === null || plan._tag === "Ignore") return yield* claim(false)
          if (plan._tag === "Ingest") {
            const handle = Effect.as(ingest.apply(partnerId, plan.action), received(true))
            return yield* db.transaction(Effect.flatMap(
              receipts.claim({ ...receipt, handled: true }),
              (won) => (won ? handle : Effect.succeed(duplicate))
            ))
          }
          // A copy already received refunds nothing more; the ledger key covers the copies that pass this look.
          if (yield* receipts.seen(keyId, webhook.id)) return duplicate
          const refunded = yield* transactions.cancel(partnerId, plan.externalId).pipe(
            Effect.as(true),
            Effect.catchTag("NotFound", () => Effect.succeed(false))
          )
          return yield* claim(refunded)
        })
        return yield* Effect.provideService(answer, CurrentTenant, caller.tenant)
      })

    return { receive } as const
  })
}) {}
