import type { Cents, CurrentTenant, IdempotencyConflict, InsufficientBalance, Move, Posted } from "@timebank/domain"
import type { Effect } from "effect"
import type { LedgerRepo } from "./LedgerRepo.js"

/** Sends a move to the current community's Ledger entity (LedgerService's `post`). */
export type PostMove = (
  kind: "Transfer",
  move: Move
) => Effect.Effect<Posted, InsufficientBalance | IdempotencyConflict, CurrentTenant>

/** A partner community's clearing account, with its floor (−credit_limit × 100 cents). */
export interface ClearingAccount {
  readonly partnerId: number
  readonly floorCents: Cents
}

/** Credits a partner sends to one of our members (decisions D13a). */
export interface PartnerCredit extends ClearingAccount {
  readonly recipientId: number
  readonly cents: Cents
  readonly description: string
  /** Unique per community: the same key with the same `requestHash` answers the first outcome. */
  readonly key: string
  readonly requestHash: string
  /** The partner's member who paid, as the recipient's notification names them. */
  readonly senderName?: string
}

/** Credits going back from a member to the partner: the compensating move of a cancelled federated credit. */
export interface PartnerRefund extends ClearingAccount {
  readonly userId: number
  readonly cents: Cents
  readonly description: string
  readonly key: string
  readonly requestHash: string
}

const partner = (account: ClearingAccount) =>
  ({ _tag: "partner", partnerId: account.partnerId, floorCents: account.floorCents }) as const

/**
 * The moves of partners' clearing accounts, through the Ledger entity like every other move. A partner's account
 * pays a member and may go below zero down to its floor (422 INSUFFICIENT_BALANCE past it); a refund pays back from
 * the member, who follows the community's usual rule (no negative balance unless it allows them).
 */
export const clearingMoves = (post: PostMove, repo: LedgerRepo) => ({
  receiveFromPartner: (credit: PartnerCredit) =>
    post("Transfer", {
      idempotencyKey: credit.key,
      requestHash: credit.requestHash,
      type: "federated",
      from: partner(credit),
      to: { _tag: "member", userId: credit.recipientId },
      cents: credit.cents,
      description: credit.description,
      senderId: null,
      recipientId: credit.recipientId,
      listingId: null,
      createdBy: null,
      ...(credit.senderName === undefined ? {} : { senderName: credit.senderName })
    }),

  refundToPartner: (refund: PartnerRefund) =>
    post("Transfer", {
      idempotencyKey: refund.key,
      requestHash: refund.requestHash,
      type: "federated",
      from: { _tag: "member", userId: refund.userId },
      to: partner(refund),
      cents: refund.cents,
      description: refund.description,
      senderId: refund.userId,
      recipientId: null,
      listingId: null,
      createdBy: null
    }),

  /** The partner's clearing balance in cents (negative: it sent us more than it received); 0 before any move. */
  partnerBalance: (partnerId: number) => repo.partnerBalance(partnerId)
})
