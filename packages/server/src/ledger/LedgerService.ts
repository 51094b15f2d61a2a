import {
  type Cents,
  CurrentTenant,
  CurrentUser,
  fromCents,
  type GrantRequest,
  InsufficientBalance,
  LedgerEntity,
  type Move,
  NotFound,
  type Posted,
  toCents,
  type TransactionId,
  type TransferRequest,
  ValidationFailed,
  WalletTransaction
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { createHash, randomUUID } from "node:crypto"
import { type Member, MemberDirectory } from "../identity/MemberDirectory.js"
import { ListingsService } from "../listings/ListingsService.js"
import { TenantAdmin } from "../platform/Policy.js"
import { clearingMoves } from "./LedgerClearing.js"
import { LedgerRepo, type MemberTransactionRow } from "./LedgerRepo.js"

const hashOf = (request: object) => createHash("sha256").update(JSON.stringify(request)).digest("hex")

/** The treasury issues credits and may go negative, so a grant is never refused for balance. */
const treasuryNeverShort = <A, E, R>(effect: Effect.Effect<A, E | InsufficientBalance, R>) =>
  Effect.catchIf(
    effect,
    (e): e is InsufficientBalance => e instanceof InsufficientBalance,
    Effect.die
  ) as Effect.Effect<
    A,
    Exclude<E, InsufficientBalance>,
    R
  >

/** From a decoded row: the response is encoded through its schema, so the class does not check the fields first. */
export const toWalletTransaction = (row: MemberTransactionRow) =>
  WalletTransaction.make({
    id: row.id,
    type: row.type,
    amount: row.amount,
    sender_id: row.sender_id,
    recipient_id: row.recipient_id,
    description: row.description,
    listing_id: row.listing_id,
    direction: row.outgoing ? "out" : "in",
    created_at: DateTime.unsafeFromDate(row.created_at)
  }, true)

/**
 * Wallets of the current community. Every move goes to the community's Ledger entity; this service checks the
 * request, names the move (idempotency key and request hash) and reads the result back.
 */
export class LedgerService extends Effect.Service<LedgerService>()("LedgerService", {
  dependencies: [LedgerRepo.Default, MemberDirectory.Default, ListingsService.Default],
  effect: Effect.gen(function*() {
    const repo = yield* LedgerRepo
    const members = yield* MemberDirectory
    const listings = yield* ListingsService
    const makeClient = yield* LedgerEntity.client

    /** Sends a move to the community's ledger; transport trouble is a defect, ledger refusals stay typed. */
    const post = (kind: "Transfer" | "Grant" | "Deposit" | "Payout", move: Move) =>
      Effect.flatMap(CurrentTenant, (tenant) => makeClient(String(tenant.id))[kind](move)).pipe(
        Effect.catchIf(
          (e): e is Exclude<typeof e, { readonly _tag: "InsufficientBalance" | "IdempotencyConflict" }> =>
            e._tag !== "InsufficientBalance" && e._tag !== "IdempotencyConflict",
          Effect.die
        )
      )

    /** A member of this community who can hold credits. */
    const member = (userId: number, field: string) =>
      Effect.flatMap(members.find(userId), (found): Effect.Effect<Member, NotFound | ValidationFailed> => {
        if (Option.isNone(found)) return Effect.fail(NotFound.of("User"))
        return found.value.canSignIn
          ? Effect.succeed(found.value)
          : Effect.fail(ValidationFailed.field(field, "this member cannot receive credits now"))
      })

    /**
     * The answer to a posted move, without reading it back: a replay matched the request hash, so its recipient,
     * amount, description and listing are this move's; only id and time come from the ledger.
     */
    const viewOf = (move: Move, posted: Posted, viewer: number) =>
      WalletTransaction.make({
        id: posted.transactionId as TransactionId,
        type: move.type,
        amount: fromCents(move.cents),
        sender_id: move.senderId,
        recipient_id: move.recipientId,
        description: move.description,
        listing_id: move.listingId,
        direction: move.senderId === viewer ? "out" : "in",
        created_at: posted.createdAt
      }, true)

    const transfer = Effect.fn("Ledger.transfer")(function*(input: TransferRequest, key: string | undefined) {
      const actor = yield* CurrentUser
      if (input.recipient_id === actor.userId) {
        return yield* ValidationFailed.field("recipient_id", "cannot transfer to yourself")
      }
      yield* member(input.recipient_id, "recipient_id")
      if (input.listing_id !== undefined && !(yield* listings.exists(input.listing_id))) {
        return yield* ValidationFailed.field("listing_id", "is not a listing of this community")
      }
      const cents = toCents(input.amount)
      const listingId = input.listing_id ?? null
      const move: Move = {
        idempotencyKey: `transfer:${actor.userId}:${key ?? randomUUID()}`,
        requestHash: hashOf({ recipient: input.recipient_id, cents, description: input.description, listingId }),
        type: "transfer",
        from: { _tag: "member", userId: actor.userId },
        to: { _tag: "member", userId: input.recipient_id },
        cents,
        description: input.description,
        senderId: actor.userId,
        recipientId: input.recipient_id,
        listingId,
        createdBy: actor.userId
      }
      return viewOf(move, yield* post("Transfer", move), actor.userId)
    })

    const grantMove = (userId: number, cents: Cents, reason: string, key: string, createdBy: number | null): Move => ({
      idempotencyKey: key,
      requestHash: hashOf({ userId, cents, reason }),
      type: "grant",
      from: { _tag: "treasury" },
      to: { _tag: "member", userId },
      cents,
      description: reason,
      senderId: null,
      recipientId: userId,
      listingId: null,
      createdBy
    })

    /** A tenant admin grants credits from the community's treasury (decisions D5). */
    const grant = Effect.fn("Ledger.grant")(function*(input: GrantRequest, key: string | undefined) {
      const admin = yield* TenantAdmin
      yield* member(input.user_id, "user_id")
      const move = grantMove(
        input.user_id,
        toCents(input.amount),
        input.reason,
        `grant:${admin.userId}:${key ?? randomUUID()}`,
        admin.userId
      )
      return viewOf(move, yield* treasuryNeverShort(post("Grant", move)), input.user_id)
    })

    /** The community's starting balance, granted once per member (decisions D5: at approval). */
    const grantStartingBalance = Effect.fn("Ledger.grantStartingBalance")(function*(userId: number) {
      const tenant = yield* CurrentTenant
      const cents = toCents(tenant.settings.starting_balance)
      if (cents <= 0) return Option.none()
      const move = grantMove(userId, cents, "Starting balance", `starting-balance:${userId}`, null)
      return Option.some(yield* treasuryNeverShort(post("Grant", move)))
    })

    const organisation = (organisationId: number) => ({ _tag: "organisation" as const, organisationId })

    /**
     * The caller moves credits from their wallet into an organisation's wallet (decisions D7). The organisation is
     * checked by the caller of this method (volunteering's dashboard policy).
     */
    const depositToOrganisation = Effect.fn("Ledger.depositToOrganisation")(function*(
      organisationId: number,
      cents: Cents,
      note: string,
      key: string | undefined
    ) {
      const actor = yield* CurrentUser
      const move: Move = {
        idempotencyKey: `deposit:${actor.userId}:${key ?? randomUUID()}`,
        requestHash: hashOf({ organisationId, cents, note }),
        type: "deposit",
        from: { _tag: "member", userId: actor.userId },
        to: organisation(organisationId),
        cents,
        description: note,
        senderId: actor.userId,
        recipientId: null,
        listingId: null,
        createdBy: actor.userId
      }
      return yield* post("Deposit", move)
    })

    /**
     * An organisation pays a volunteer from its wallet. `key` names the reason (for example one approved hour log),
     * so a retried or doubled request pays once: the ledger answers a repeated key with the first outcome.
     */
    const payFromOrganisation = Effect.fn("Ledger.payFromOrganisation")(function*(input: {
      readonly organisationId: number
      readonly userId: number
      readonly cents: Cents
      readonly description: string
      readonly key: string
      readonly createdBy: number | null
    }) {
      const move: Move = {
        idempotencyKey: input.key,
        requestHash: hashOf({ organisationId: input.organisationId, userId: input.userId, cents: input.cents }),
        type: "autopay",
        from: organisation(input.organisationId),
        to: { _tag: "member", userId: input.userId },
        cents: input.cents,
        description: input.description,
        senderId: null,
        recipientId: input.userId,
        listingId: null,
        createdBy: input.createdBy
      }
      return yield* post("Payout", move)
    })

    /**
     * A community admin corrects an organisation's wallet through the treasury: a positive amount is paid in from
     * the treasury, a negative one back to it (refused with INSUFFICIENT_BALANCE below zero).
     */
    const adjustOrganisation = Effect.fn("Ledger.adjustOrganisation")(function*(
      organisationId: number,
      signedCents: Cents,
      reason: string,
      key: string | undefined
    ) {
      const admin = yield* TenantAdmin
      const credit = signedCents > 0
      const move: Move = {
        idempotencyKey: `adjust:${admin.userId}:${key ?? randomUUID()}`,
        requestHash: hashOf({ organisationId, signedCents, reason }),
        type: "adjustment",
        from: credit ? { _tag: "treasury" } : organisation(organisationId),
        to: credit ? organisation(organisationId) : { _tag: "treasury" },
        cents: Math.abs(signedCents),
        description: reason,
        senderId: null,
        recipientId: null,
        listingId: null,
        createdBy: admin.userId
      }
      return yield* post(credit ? "Grant" : "Payout", move)
    })

    /**
     * An event's organiser pays a checked-in attendee (decisions D8). The key names the attendee of the event, so
     * a repeated check-in returns the first transaction and never pays twice.
     */
    const payCheckIn = Effect.fn("Ledger.payCheckIn")(function*(input: {
      readonly eventId: number
      readonly organiserId: number
      readonly attendeeId: number
      readonly cents: Cents
      readonly description: string
      readonly createdBy: number
    }) {
      const move: Move = {
        idempotencyKey: `checkin:${input.eventId}:${input.attendeeId}`,
        requestHash: hashOf({ eventId: input.eventId, attendeeId: input.attendeeId }),
        type: "checkin",
        from: { _tag: "member", userId: input.organiserId },
        to: { _tag: "member", userId: input.attendeeId },
        cents: input.cents,
        description: input.description,
        senderId: input.organiserId,
        recipientId: input.attendeeId,
        listingId: null,
        createdBy: input.createdBy
      }
      return yield* post("Transfer", move).pipe(
        // The hash names only event and attendee, so a key can never meet a different request.
        Effect.catchTag("IdempotencyConflict", Effect.die)
      )
    })

    return {
      ...clearingMoves(post, repo),
      /** The transaction a move with this idempotency key posted, if it was posted (a caller recovering its work). */
      transactionIdByKey: (key: string) => repo.transactionIdByKey(key),
      payCheckIn,
      organisationBalance: (organisationId: number) => repo.organisationBalance(organisationId),
      /** Balances (cents) of a page of organisations, one query; organisations without an account have 0. */
      organisationBalances: (organisationIds: ReadonlyArray<number>) => repo.organisationBalances(organisationIds),
      /** Newest first, one more than `perPage` rows (for cursor paging); direction is the organisation's. */
      organisationTransactions: (organisationId: number, before: number | undefined, perPage: number) =>
        Effect.map(
          repo.organisationTransactions(organisationId, before, perPage + 1),
          (rows) => rows.map(toWalletTransaction)
        ),
      depositToOrganisation,
      payFromOrganisation,
      adjustOrganisation,
      wallet: Effect.flatMap(CurrentUser, (actor) => repo.memberBalance(actor.userId)).pipe(
        Effect.map((cents) => ({ balance: fromCents(cents), currency: "hours" as const }))
      ),
      transactions: (before: number | undefined, perPage: number) =>
        Effect.flatMap(CurrentUser, (actor) => repo.memberTransactions(actor.userId, before, perPage + 1)).pipe(
          Effect.map((rows) => rows.map(toWalletTransaction))
        ),
      transaction: (id: number) =>
        Effect.flatMap(CurrentUser, (actor) => repo.memberTransaction(actor.userId, id)).pipe(
          Effect.flatMap(Option.match({
            onNone: () => Effect.fail(NotFound.of("Transaction")),
            onSome: (row) => Effect.succeed(toWalletTransaction(row))
          }))
        ),
      transfer,
      grant,
      grantStartingBalance
    } as const
  })
}) {}
