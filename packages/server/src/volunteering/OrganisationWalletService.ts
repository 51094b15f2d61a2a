import {
  cursorPage,
  type DepositRequest,
  type DepositResult,
  DomainEvents,
  encodeCursor,
  fromCents,
  type OrganisationId,
  type OrganisationWallet,
  RECENT_WALLET_TRANSACTIONS,
  toCents,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type WalletTransactionsParams
} from "@timebank/domain"
import { Effect } from "effect"
import { LedgerService } from "../ledger/LedgerService.js"
import { Outbox } from "../platform/Outbox.js"
import { CommunityMember, requireCommunityMember } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { DashboardRepo } from "./DashboardRepo.js"
import {
  OrganisationAccess,
  OrganisationManager,
  organisationNotFound,
  requireNotSuspended
} from "./OrganisationPolicy.js"
import { OrganisationRepo } from "./OrganisationRepo.js"

/** The description of a deposit without a note; fixed, so that a retried request hashes the same. */
const DEFAULT_DEPOSIT_NOTE = "Deposit to organisation wallet"

/**
 * The organisation wallet as its managers see it (decisions D7): balance, history, deposits from the manager's own
 * wallet, the auto-pay switch. The wallet is the organisation's ledger account; every move goes through the
 * community's Ledger entity (`LedgerService`), which also writes the `TransactionCompleted` outbox event.
 */
export class OrganisationWalletService extends Effect.Service<OrganisationWalletService>()(
  "OrganisationWalletService",
  {
    dependencies: [
      OrganisationAccess.Default,
      OrganisationRepo.Default,
      DashboardRepo.Default,
      Outbox.Default,
      TenantSql.Default
    ],
    effect: Effect.gen(function*() {
      const access = yield* OrganisationAccess
      const organisations = yield* OrganisationRepo
      const dashboard = yield* DashboardRepo
      const outbox = yield* Outbox
      const db = yield* TenantSql
      const ledger = yield* LedgerService

      /** Four statements besides the access check, side by side. */
      const wallet = Effect.fn("OrganisationWallet.get")(function*(id: OrganisationId) {
        return yield* access.manage(id)(Effect.gen(function*() {
          const { organisation } = yield* OrganisationManager
          const { balance, pendingHours, recent } = yield* Effect.all({
            balance: ledger.organisationBalance(id),
            pendingHours: dashboard.pendingHours(id),
            // organisationTransactions fetches one more than asked (for paging); the summary drops it.
            recent: ledger.organisationTransactions(id, undefined, RECENT_WALLET_TRANSACTIONS)
          }, { concurrency: 3 })
          return {
            balance: fromCents(balance),
            auto_pay_enabled: organisation.auto_pay_enabled,
            pending_hours: pendingHours,
            recent_transactions: recent.slice(0, RECENT_WALLET_TRANSACTIONS)
          } satisfies OrganisationWallet
        }))
      })

      const transactions = Effect.fn("OrganisationWallet.transactions")(function*(
        id: OrganisationId,
        params: WalletTransactionsParams
      ) {
        return yield* access.manage(id)(Effect.gen(function*() {
          const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
          const rows = yield* ledger.organisationTransactions(id, params.cursor, perPage)
          return cursorPage(rows, perPage, (last) => encodeCursor(last.id))
        }))
      })

      /**
       * From the caller's own wallet in this community: a site super-admin visiting from the platform tenant has none
       * here (403). The Idempotency-Key replays the first transaction; `balance` is the wallet's balance now.
       */
      const deposit = Effect.fn("OrganisationWallet.deposit")(function*(
        id: OrganisationId,
        input: DepositRequest,
        key: string | undefined
      ) {
        return yield* access.manage(id)(
          Effect.gen(function*() {
            yield* CommunityMember
            const { organisation } = yield* OrganisationManager
            yield* requireNotSuspended(organisation)
            const note = input.note === undefined || input.note === "" ? DEFAULT_DEPOSIT_NOTE : input.note
            const posted = yield* ledger.depositToOrganisation(id, toCents(input.amount), note, key)
            const balance = yield* ledger.organisationBalance(id)
            return { balance: fromCents(balance), transaction_id: posted.transactionId } satisfies DepositResult
          }).pipe(requireCommunityMember("deposit from their own wallet"))
        )
      })

      const setAutoPay = Effect.fn("OrganisationWallet.setAutoPay")(function*(id: OrganisationId, enabled: boolean) {
        return yield* access.change(id)(Effect.gen(function*() {
          const { actor, organisation } = yield* OrganisationManager
          if (organisation.auto_pay_enabled === enabled) return { auto_pay_enabled: enabled }
          return yield* db.transaction(Effect.gen(function*() {
            const outcome = yield* organisations.update(id, { auto_pay_enabled: enabled })
            if (outcome._tag !== "Written") return yield* organisationNotFound()
            yield* outbox.append(
              new DomainEvents.OrganisationAutoPayChanged({
                organisation_id: id,
                auto_pay_enabled: enabled,
                changed_by: actor.userId
              })
            )
            return { auto_pay_enabled: outcome.row.auto_pay_enabled }
          }))
        }))
      })

      return { wallet, transactions, deposit, setAutoPay } as const
    })
  }
) {}
