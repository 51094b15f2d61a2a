import {
  type Cents,
  type CreateFederationTransfer,
  CurrentTenant,
  CurrentUser,
  type FederatedWritesListParams,
  FEDERATION_WRITES_PER_PAGE_DEFAULT,
  FederationOptInRequired,
  IdempotencyConflict,
  InsufficientBalance,
  NotFound,
  numericFromCents,
  PartnerNotActive,
  PartnerUnavailable,
  toCents,
  ValidationFailed
} from "@timebank/domain"
import { Cause, Effect, Option } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { SharedMembers } from "../../identity/SharedMembers.js"
import { LedgerService } from "../../ledger/LedgerService.js"
import { idCursorPage } from "../../platform/Paging.js"
import { FederationAccounts } from "../accounts/FederationAccounts.js"
import { federationDisabled } from "../auth/FederationAccessLive.js"
import { PartnerDirectory, type PartnerRecord } from "../partners/PartnerDirectory.js"
import type {
  FederationProtocol,
  OutboundTransfer,
  PartnerContext,
  PreparedTransfer,
  TransferOutcome
} from "../protocols/FederationProtocol.js"
import { FederationProtocols } from "../protocols/FederationProtocols.js"
import { transferTimeoutMs } from "../protocols/TransferTimeout.js"
import { FederationSwitches } from "../switches/FederationSwitches.js"
import { floorCentsOf } from "../transactions/FederatedTransactions.js"
import { type OutboundTransferRow, OutboundTransfersRepo } from "./OutboundTransfersRepo.js"
import { outboundTransferView } from "./OutboundTransferViews.js"

const hashOf = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex")

/** What makes two requests of one Idempotency-Key the same: the whole body, the amount in cents. */
export const outboundRequestHash = (input: CreateFederationTransfer) =>
  hashOf({
    partner: input.partner_id,
    recipient: input.recipient,
    cents: toCents(input.amount),
    description: input.description
  })

/** The ledger's idempotency keys of a transfer's debit and of its reversal: each moves once per transfer. */
export const debitKey = (uuid: string) => `federation-out:${uuid}`
export const reversalKey = (uuid: string) => `federation-out-reversal:${uuid}`

/**
 * The clearing account's floor for a reversal. The reversal gives back exactly what the debit paid in, yet the
 * account may have dropped since (partners' credits, a lowered credit limit): a floor there would keep the member's
 * hours with a partner that never took them, so the reversal must never be refused.
 */
const REVERSAL_FLOOR_CENTS = Number.MIN_SAFE_INTEGER

/**
 * A pending transfer this much older than the longest a request may take is one whose process stopped mid-way
 * (`recoverInterrupted`); at least 10 minutes, and four transfer timeouts when those are longer.
 */
const INTERRUPTED_AFTER_MS = 10 * 60_000
const RECOVER_BATCH = 100

/** How long a replay waits past the transfer timeout for a concurrent first request to settle. */
const SETTLE_MARGIN_MS = 5_000
const SETTLE_POLL_MS = 100

const conflict = () => new IdempotencyConflict({ message: "This Idempotency-Key was used with a different request" })

/** A protocol's `send` never fails; a defect in it still ends the transfer, with the money given back. */
const sendSafely = (
  protocol: FederationProtocol,
  context: PartnerContext,
  transfer: OutboundTransfer,
  prepared: PreparedTransfer
) =>
  protocol.send(context, transfer, prepared).pipe(
    Effect.catchAllCause((cause) =>
      Effect.as(
        Effect.logError("federation transfer: the protocol's send failed", cause),
        {
          _tag: "Failed",
          httpStatus: null,
          detail: `the ${protocol.name} adapter failed: ${Cause.pretty(cause).split("\n")[0] ?? "defect"}; ` +
            "the outcome at the partner is unknown",
          outcomeUnknown: true
        } satisfies TransferOutcome
      )
    )
  )

/**
 * Members' transfers to members of partner communities (decisions D16). In order: the checks, the protocol's
 * `prepare` (nothing recorded or moved when it fails), a `pending` row, the debit from the member to the partner's
 * clearing account through the community's Ledger entity (a refusal leaves no row), the protocol's call (outside
 * any database transaction), then `completed`, or the reversal and `failed` with the partner's answer. Needs
 * `LedgerService` from the app (the Ledger entity client).
 */
export class OutboundTransfers extends Effect.Service<OutboundTransfers>()("OutboundTransfers", {
  dependencies: [
    OutboundTransfersRepo.Default,
    PartnerDirectory.Default,
    SharedMembers.Default,
    FederationAccounts.Default,
    FederationSwitches.Default,
    FederationProtocols.Default
  ],
  effect: Effect.gen(function*() {
    const repo = yield* OutboundTransfersRepo
    const partners = yield* PartnerDirectory
    const members = yield* SharedMembers
    const accounts = yield* FederationAccounts
    const switches = yield* FederationSwitches
    const protocols = yield* FederationProtocols
    const ledger = yield* LedgerService
    const timeoutMs = yield* transferTimeoutMs
    // A send makes at most two calls (Komunitin's two-step commit), each bounded by the transfer timeout.
    const settleWithinMs = 2 * timeoutMs + SETTLE_MARGIN_MS
    const interruptedAfterMs = Math.max(INTERRUPTED_AFTER_MS, 4 * timeoutMs)

    /**
     * The first request's transfer, once it settled (a concurrent first request may still be sending). Its row
     * gone means the ledger refused its debit, which is this request's answer too.
     */
    const settled = (row: OutboundTransferRow) =>
      Effect.gen(function*() {
        const deadline = Date.now() + settleWithinMs
        let current = row
        while (current.status === "pending" && Date.now() < deadline) {
          yield* Effect.sleep(SETTLE_POLL_MS)
          const again = yield* repo.find(current.user_id, current.id)
          if (Option.isNone(again)) {
            return yield* new InsufficientBalance({
              message: "The balance does not cover this amount",
              field: "amount"
            })
          }
          current = again.value
        }
        return current
      })

    const replay = (row: OutboundTransferRow, requestHash: string) =>
      row.request_hash === requestHash ? Effect.map(settled(row), outboundTransferView) : Effect.fail(conflict())

    /** The partner, active and with every credential its protocol needs. */
    const activePartner = Effect.fn("OutboundTransfers.activePartner")(function*(partnerId: number) {
      const partner = yield* partners.find(partnerId)
      if (Option.isNone(partner)) return yield* new NotFound({ message: "Partner not found", field: "partner_id" })
      if (partner.value.status !== "active") {
        return yield* new PartnerNotActive({ message: "The partner is not active", field: "partner_id" })
      }
      const protocol = protocols.of(partner.value.protocolType)
      const credentials = Option.getOrElse(
        yield* partners.credentials(partnerId),
        (): Readonly<Record<string, string>> => ({})
      )
      if (protocol.requiredCredentials.some((k) => (credentials[k] ?? "") === "")) {
        return yield* new PartnerNotActive({
          message: "The partner cannot take transfers: its credentials are incomplete",
          field: "partner_id"
        })
      }
      return { partner: partner.value, protocol, credentials }
    })

    /** The compensating move of a debited transfer (once per transfer: keyed), then the row `failed`. */
    const reverseAndFail = (r: {
      readonly uuid: string
      readonly partnerId: number
      readonly partnerName: string
      readonly userId: number
      readonly cents: Cents
      readonly description: string
      readonly failure: { readonly http_status: number | null; readonly detail: string }
      readonly outcomeUnknown: boolean
    }) =>
      Effect.gen(function*() {
        const reversal = yield* ledger.receiveFromPartner({
          partnerId: r.partnerId,
          floorCents: REVERSAL_FLOOR_CENTS,
          recipientId: r.userId,
          cents: r.cents,
          description: r.description,
          key: reversalKey(r.uuid),
          requestHash: hashOf({ reversal: r.uuid }),
          senderName: r.partnerName
        }).pipe(Effect.catchTags({ InsufficientBalance: Effect.die, IdempotencyConflict: Effect.die }))
        return yield* repo.settle(r.uuid, {
          _tag: "Failed",
          reversalTransactionId: reversal.transactionId,
          failure: r.failure,
          outcomeUnknown: r.outcomeUnknown
        })
      })

    /** Debit, call, then settle: one unit that a client going away must not cut in half. */
    const debitAndSend = (
      partner: PartnerRecord,
      protocol: FederationProtocol,
      context: PartnerContext,
      transfer: OutboundTransfer,
      prepared: PreparedTransfer
    ) =>
      Effect.gen(function*() {
        const debit = yield* ledger.refundToPartner({
          partnerId: partner.id,
          // The clearing account receives here: its floor does not limit the debit.
          floorCents: floorCentsOf(partner),
          userId: transfer.sender.userId,
          cents: transfer.cents,
          description: transfer.description === "" ? `Transfer to ${partner.name}` : transfer.description,
          key: debitKey(transfer.uuid),
          requestHash: hashOf({ debit: transfer.uuid })
        }).pipe(
          Effect.catchTags({
            InsufficientBalance: (refused) => Effect.zipRight(repo.deletePending(transfer.uuid), Effect.fail(refused)),
            // The key is the new transfer's own UUID and the hash names only it.
            IdempotencyConflict: Effect.die
          })
        )
        yield* repo.debited(transfer.uuid, debit.transactionId)
        const outcome = yield* sendSafely(protocol, context, transfer, prepared)
        if (outcome._tag === "Completed") {
          return yield* repo.settle(transfer.uuid, { _tag: "Completed", remoteId: outcome.remoteId })
        }
        return yield* reverseAndFail({
          uuid: transfer.uuid,
          partnerId: partner.id,
          partnerName: partner.name,
          userId: transfer.sender.userId,
          cents: transfer.cents,
          description: `Returned: ${partner.name} did not take the transfer`,
          failure: { http_status: outcome.httpStatus, detail: outcome.detail },
          outcomeUnknown: outcome.outcomeUnknown
        })
      }).pipe(Effect.uninterruptible)

    const create = Effect.fn("OutboundTransfers.create")(
      function*(input: CreateFederationTransfer, idempotencyKey: string | undefined) {
        const tenant = yield* CurrentTenant
        const user = yield* CurrentUser
        // The same answer partners get (503 with `Retry-After: 3600`), never saying which switch is off.
        if (!(yield* switches.openFor(tenant, "transactions"))) return yield* federationDisabled
        const requestHash = outboundRequestHash(input)
        if (idempotencyKey !== undefined) {
          const earlier = yield* repo.byKey(user.userId, idempotencyKey)
          if (Option.isSome(earlier)) return yield* replay(earlier.value, requestHash)
        }
        const member = yield* members.find(user.userId)
        if (Option.isNone(member)) {
          return yield* new FederationOptInRequired({
            message: "Opt in to federation (PUT /api/v2/users/me) to send hours to partners"
          })
        }
        const { credentials, partner, protocol } = yield* activePartner(input.partner_id)
        const issue = protocol.recipientIssue(input.recipient)
        if (issue !== undefined) return yield* ValidationFailed.field("recipient", issue)

        const account = yield* accounts.accountOf(user.userId)
        const context: PartnerContext = {
          partner,
          credentials,
          community: { id: tenant.id, slug: tenant.slug, currencyCode: account.currency_code }
        }
        const transfer: OutboundTransfer = {
          uuid: randomUUID(),
          recipient: input.recipient,
          cents: toCents(input.amount),
          description: input.description,
          sender: {
            userId: user.userId,
            name: `${member.value.first_name} ${member.value.last_name}`.trim(),
            accountCode: account.account_code,
            accountId: account.account_id
          }
        }
        const prepared = yield* protocol.prepare(context, transfer).pipe(
          Effect.catchTag("PartnerUnreachable", (e) =>
            Effect.fail(
              new PartnerUnavailable({
                message: `The partner could not be read, nothing was sent: ${e.detail}`
              })
            ))
        )
        const pending = yield* repo.insertPending({
          partnerId: partner.id,
          userId: user.userId,
          uuid: transfer.uuid,
          idempotencyKey: idempotencyKey ?? null,
          requestHash,
          recipient: transfer.recipient,
          amount: numericFromCents(transfer.cents),
          description: transfer.description,
          remoteAmount: prepared.remoteAmount
        })
        if (!pending.inserted) return yield* replay(pending.row, requestHash)
        return outboundTransferView(yield* debitAndSend(partner, protocol, context, transfer, prepared))
      }
    )

    const list = Effect.fn("OutboundTransfers.list")(function*(params: FederatedWritesListParams) {
      const user = yield* CurrentUser
      const perPage = params.per_page ?? FEDERATION_WRITES_PER_PAGE_DEFAULT
      const rows = yield* repo.page(user.userId, { before: params.cursor, limit: perPage + 1 })
      return yield* idCursorPage(rows, perPage, (page) => Effect.succeed(page.map(outboundTransferView)))
    })

    const get = Effect.fn("OutboundTransfers.get")(function*(id: number) {
      const user = yield* CurrentUser
      const row = yield* repo.find(user.userId, id)
      if (Option.isNone(row)) return yield* NotFound.of("Transfer")
      return outboundTransferView(row.value)
    })

    /**
     * One transfer left `pending` by a process that stopped between its steps. Without a debit in the ledger nothing
     * moved and nothing was sent (the call comes after the debit): the row goes, as when the ledger refuses a debit.
     * With one, the call may have reached the partner: the money comes back through the reversal and the transfer is
     * `failed` with its outcome unknown, as after a timeout (the partner's admins settle with our `uuid`).
     */
    const recoverOne = (
      row: OutboundTransferRow,
      partnerNameOf: (partnerId: number) => Effect.Effect<string, never, CurrentTenant>
    ) =>
      Effect.gen(function*() {
        const debitId = row.transaction_id === null
          ? yield* ledger.transactionIdByKey(debitKey(row.uuid))
          : Option.some(row.transaction_id)
        if (Option.isNone(debitId)) return yield* repo.deletePending(row.uuid)
        if (row.transaction_id === null) yield* repo.debited(row.uuid, debitId.value)
        const partnerName = yield* partnerNameOf(row.partner_id)
        yield* reverseAndFail({
          uuid: row.uuid,
          partnerId: row.partner_id,
          partnerName,
          userId: row.user_id,
          cents: toCents(row.amount),
          description: `Returned: the transfer to ${partnerName} was interrupted`,
          failure: {
            http_status: null,
            detail: "the transfer was interrupted (the service stopped while sending it); the outcome at the " +
              "partner is unknown and the hours were returned"
          },
          outcomeUnknown: true
        })
      })

    /**
     * The `federation.transfers.recover` job for the current community: settles the transfers a stopped process left
     * `pending` (older than {@link interruptedAfterMs} at `at`); answers how many it settled.
     */
    const recoverInterrupted = Effect.fn("OutboundTransfers.recoverInterrupted")(function*(at: Date) {
      const before = new Date(at.getTime() - interruptedAfterMs)
      // One read per partner in a run, not per transfer (a deleted partner's name is no longer known).
      const partnerNameOf = yield* Effect.cachedFunction((partnerId: number) =>
        Effect.map(
          partners.find(partnerId),
          Option.match({ onNone: () => "the partner", onSome: (partner) => partner.name })
        )
      )
      let recovered = 0
      for (;;) {
        const rows = yield* repo.pendingBefore(before, RECOVER_BATCH)
        for (const row of rows) yield* Effect.uninterruptible(recoverOne(row, partnerNameOf))
        recovered += rows.length
        if (rows.length < RECOVER_BATCH) return recovered
      }
    })

    return { create, list, get, recoverInterrupted } as const
  })
}) {}
