import {
  type CreateFederatedTransaction,
  CurrentTenant,
  FederatedTransaction,
  type FederatedWritesListParams,
  FEDERATION_WRITES_PER_PAGE_DEFAULT,
  FederationCaller,
  IdempotencyConflict,
  NotFound,
  numericFromCents,
  PermissionDenied,
  toCents
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { createHash } from "node:crypto"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { LedgerService } from "../../ledger/LedgerService.js"
import { idCursorPage } from "../../platform/Paging.js"
import { PartnerDirectory, type PartnerRecord } from "../partners/PartnerDirectory.js"
import { FederatedTransactionRepo, type FederatedTransactionRow } from "./FederatedTransactionRepo.js"

const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex")

/** What makes two requests of one `external_id` the same: the whole body, amounts compared in cents. */
export const federatedRequestHash = (input: CreateFederatedTransaction) =>
  hashOf({
    recipient: input.recipient_id,
    cents: toCents(input.amount),
    description: input.description,
    sender: [input.sender.name, input.sender.external_id]
  })

/** The ledger's idempotency key of a partner's credit, and of its refund. */
export const creditKey = (partnerId: number, externalId: string) => `federation:${partnerId}:${externalId}`
export const refundKey = (partnerId: number, externalId: string) => `federation-refund:${partnerId}:${externalId}`

/** The clearing account's floor in cents: −credit_limit hours. */
export const floorCentsOf = (partner: Pick<PartnerRecord, "creditLimit">) => -toCents(partner.creditLimit)

export const federatedTransactionView = (row: FederatedTransactionRow) =>
  FederatedTransaction.make({
    id: row.id,
    external_id: row.external_id,
    recipient_id: row.recipient_id,
    amount: row.amount,
    description: row.description,
    status: row.refund_transaction_id === null ? "completed" : "cancelled",
    sender: { name: row.sender_name, external_id: row.sender_external_id },
    created_at: DateTime.unsafeFromDate(row.created_at)
  })

/** What a cancel did: `alreadyRefunded` when an earlier call (or a concurrent one) made the refund. */
export interface CancelOutcome {
  readonly transaction: FederatedTransaction
  readonly alreadyRefunded: boolean
}

const conflict = () =>
  new IdempotencyConflict({
    message: "This external_id was used with a different request",
    field: "external_id"
  })

const recipientNotFound = () => new NotFound({ message: "Member not found", field: "recipient_id" })

/** Runs `effect` in the community of the calling partner's key. */
export const asCaller = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.flatMap(FederationCaller, (caller) => Effect.provideService(effect, CurrentTenant, caller.tenant))

/**
 * Credits partners send to our members (decisions D13, D13a). The money moves through the community's Ledger
 * entity, from the partner's clearing account (its floor: −credit_limit hours); the ledger's idempotency key
 * `federation:<partner>:<external_id>` makes a repeated or concurrent request credit once, and this row keeps the
 * partner's names of it. Needs `LedgerService` from the app (the Ledger entity client).
 */
export class FederatedTransactions extends Effect.Service<FederatedTransactions>()("FederatedTransactions", {
  dependencies: [FederatedTransactionRepo.Default, PartnerDirectory.Default, SharedMembers.Default],
  effect: Effect.gen(function*() {
    const repo = yield* FederatedTransactionRepo
    const partners = yield* PartnerDirectory
    const members = yield* SharedMembers
    const ledger = yield* LedgerService

    /** The caller's partner, active (the access policy checked it; it may have changed since). */
    const activePartner = Effect.gen(function*() {
      const caller = yield* FederationCaller
      const partner = caller.partnerId === null ? Option.none() : yield* partners.find(caller.partnerId)
      if (Option.isNone(partner) || partner.value.status !== "active") {
        return yield* new PermissionDenied({ message: "Writes need a key bound to an active partner" })
      }
      return partner.value
    })

    /** `created` false for a repeat of an earlier request (200 with the first transaction). */
    const create = Effect.fn("FederatedTransactions.create")(function*(input: CreateFederatedTransaction) {
      const partner = yield* activePartner
      const requestHash = federatedRequestHash(input)
      const earlier = yield* repo.byExternalId(partner.id, input.external_id)
      if (Option.isSome(earlier)) {
        if (earlier.value.request_hash !== requestHash) return yield* conflict()
        return { created: false, data: federatedTransactionView(earlier.value) }
      }
      if (Option.isNone(yield* members.find(input.recipient_id))) return yield* recipientNotFound()
      const cents = toCents(input.amount)
      const posted = yield* ledger.receiveFromPartner({
        partnerId: partner.id,
        floorCents: floorCentsOf(partner),
        recipientId: input.recipient_id,
        cents,
        description: input.description,
        key: creditKey(partner.id, input.external_id),
        requestHash,
        senderName: `${input.sender.name} (${partner.name})`
      }).pipe(Effect.catchTag("IdempotencyConflict", () => conflict()))
      const row = yield* repo.record({
        partnerId: partner.id,
        externalId: input.external_id,
        requestHash,
        transactionId: posted.transactionId,
        recipientId: input.recipient_id,
        amount: numericFromCents(cents),
        description: input.description,
        senderName: input.sender.name,
        senderExternalId: input.sender.external_id
      })
      return { created: !posted.replayed, data: federatedTransactionView(row) }
    })

    /** The caller's partner's transactions; a key bound to no partner has none. */
    const list = Effect.fn("FederatedTransactions.list")(function*(params: FederatedWritesListParams) {
      const caller = yield* FederationCaller
      const perPage = params.per_page ?? FEDERATION_WRITES_PER_PAGE_DEFAULT
      const rows = caller.partnerId === null
        ? []
        : yield* repo.page(caller.partnerId, { before: params.cursor, limit: perPage + 1 })
      return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(federatedTransactionView)))
    })

    const get = Effect.fn("FederatedTransactions.get")(function*(id: number) {
      const caller = yield* FederationCaller
      const row = caller.partnerId === null ? Option.none() : yield* repo.find(caller.partnerId, id)
      if (Option.isNone(row)) return yield* NotFound.of("Transaction")
      return federatedTransactionView(row.value)
    })

    /**
     * Refunds the partner's transaction `externalId` once, with a compensating ledger move from the member back to
     * the clearing account (the partner's `transaction.cancelled` webhook). The member follows the community's
     * usual rule: one who already spent the credits, in a community without negative balances, is refused with
     * INSUFFICIENT_BALANCE and nothing changes (the partner may send the webhook again later).
     */
    const cancel = Effect.fn("FederatedTransactions.cancel")(function*(partnerId: number, externalId: string) {
      const row = yield* repo.byExternalId(partnerId, externalId)
      if (Option.isNone(row)) return yield* NotFound.of("Transaction")
      const original = row.value
      if (original.refund_transaction_id !== null) {
        return { transaction: federatedTransactionView(original), alreadyRefunded: true } satisfies CancelOutcome
      }
      const partner = yield* partners.find(partnerId)
      const posted = yield* ledger.refundToPartner({
        partnerId,
        // The partner's account receives here: its floor does not limit a refund.
        floorCents: Option.match(partner, { onNone: () => 0, onSome: floorCentsOf }),
        userId: original.recipient_id,
        cents: toCents(original.amount),
        description: original.description === ""
          ? "Federated transaction cancelled"
          : `Cancelled: ${original.description}`,
        key: refundKey(partnerId, externalId),
        requestHash: hashOf({ refund: original.transaction_id })
      }).pipe(
        // The hash names only the original transaction, so the key never meets a different request.
        Effect.catchTag("IdempotencyConflict", Effect.die)
      )
      const marked = yield* repo.markRefunded(original.id, posted.transactionId)
      const after = yield* repo.byExternalId(partnerId, externalId)
      return {
        transaction: federatedTransactionView(Option.getOrElse(after, () => original)),
        alreadyRefunded: !marked
      } satisfies CancelOutcome
    })

    return { create, list, get, cancel } as const
  })
}) {}
