import {
  type Actor,
  type AdminCreateOrganisation,
  AdminOrganisation,
  AdminOrganisationMember,
  type AdminOrganisationsParams,
  type AdminOrganisationStatus,
  cursorPage,
  DomainEvents,
  encodeCursor,
  fromCents,
  offsetMeta,
  type OrganisationWalletAdjusted,
  type OrganisationWalletAdjustment,
  toCents,
  type TransactionId,
  type UpdateOrganisation,
  ValidationFailed,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type VolunteeringPageParams
} from "@timebank/domain"
import { DateTime, Effect, Option } from "effect"
import { MemberDirectory } from "../identity/MemberDirectory.js"
import { UserSummaries } from "../identity/UserSummaries.js"
import { LedgerService } from "../ledger/LedgerService.js"
import { Outbox } from "../platform/Outbox.js"
import { offsetPage } from "../platform/Paging.js"
import { requireTenantAdmin, TenantAdmin } from "../platform/Policy.js"
import { TenantSql } from "../platform/TenantSql.js"
import { OrganisationAccess, organisationNotFound } from "./OrganisationPolicy.js"
import { OrganisationRegistration } from "./OrganisationRegistration.js"
import { OrganisationRepo, type OrganisationRow } from "./OrganisationRepo.js"
import { managedFields, OrganisationViews } from "./OrganisationViews.js"
import { memberOf } from "./VolunteeringViews.js"

export const DEFAULT_ADMIN_ORGANISATIONS_PER_PAGE = 20

const ownerRequired = () =>
  ValidationFailed.field("owner_id", "is required when a platform super-admin creates an organisation")
const ownerInvalid = () => ValidationFailed.field("owner_id", "is not an active member of this community")

/**
 * Volunteering organisations for community admins (tenant admin or platform super-admin), behind the
 * `volunteering` feature gate of the contract: every status, stats, balances, members, status changes and wallet
 * corrections.
 * Needs `LedgerService` from the app (the Ledger entity client).
 */
export class AdminOrganisationsService extends Effect.Service<AdminOrganisationsService>()(
  "AdminOrganisationsService",
  {
    dependencies: [
      OrganisationRepo.Default,
      OrganisationAccess.Default,
      OrganisationRegistration.Default,
      OrganisationViews.Default,
      MemberDirectory.Default,
      UserSummaries.Default,
      Outbox.Default,
      TenantSql.Default
    ],
    effect: Effect.gen(function*() {
      const db = yield* TenantSql
      const repo = yield* OrganisationRepo
      const access = yield* OrganisationAccess
      const registration = yield* OrganisationRegistration
      const views = yield* OrganisationViews
      const directory = yield* MemberDirectory
      const summaries = yield* UserSummaries
      const ledger = yield* LedgerService
      const outbox = yield* Outbox

      /** Admin views of a page: owners, aggregates, balances and member counts, one query each, side by side. */
      const many = (rows: ReadonlyArray<OrganisationRow>) => {
        const ids = rows.map((r) => r.id)
        return Effect.map(
          Effect.all({
            related: views.related(rows),
            balances: ledger.organisationBalances(ids),
            members: repo.activeMemberCounts(ids)
          }, { concurrency: 3 }),
          ({ balances, members, related }) =>
            rows.map((row) => {
              const { owner, stats } = related(row)
              return AdminOrganisation.make({
                ...managedFields(row, owner, stats),
                balance: fromCents(balances.get(row.id) ?? 0),
                auto_pay_enabled: row.auto_pay_enabled,
                member_count: members.get(row.id) ?? 0,
                updated_at: DateTime.unsafeFromDate(row.updated_at)
              })
            })
        )
      }
      const one = (row: OrganisationRow) => Effect.map(many([row]), (views) => views[0]!)

      const list = Effect.fn("AdminOrganisations.list")(
        function*(params: AdminOrganisationsParams) {
          yield* TenantAdmin
          const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_ORGANISATIONS_PER_PAGE)
          const { rows, total } = yield* repo.listAll({ page, perPage, status: params.status, search: params.search })
          return { data: yield* many(rows), meta: offsetMeta(page, perPage, total) }
        },
        requireTenantAdmin
      )

      /** The owner of an admin-created organisation: the given active member, else the calling admin. */
      const ownerOf = (admin: Actor, ownerId: number | undefined) =>
        Effect.gen(function*() {
          if (ownerId === undefined) {
            // A platform super-admin is not a member of this community, so cannot own its organisation.
            if (admin.tenantId !== admin.actingTenantId) return yield* ownerRequired()
            return admin.userId as number
          }
          const owner = yield* directory.find(ownerId)
          if (Option.isNone(owner) || !owner.value.canSignIn) return yield* ownerInvalid()
          return ownerId
        })

      const create = Effect.fn("AdminOrganisations.create")(
        function*(input: AdminCreateOrganisation) {
          const admin = yield* TenantAdmin
          const { owner_id, ...fields } = input
          const ownerId = yield* ownerOf(admin, owner_id)
          return yield* one(yield* registration.create({ ...fields, ownerId, status: "active" }, admin.userId))
        },
        requireTenantAdmin
      )

      const update = Effect.fn("AdminOrganisations.update")(
        function*(id: number, patch: UpdateOrganisation) {
          const admin = yield* TenantAdmin
          const row = yield* access.find(id)
          return yield* one(yield* registration.update(row, patch, admin.userId))
        },
        requireTenantAdmin
      )

      /** `active` or `suspended` from any status; the outbox hears of real changes only. */
      const setStatus = Effect.fn("AdminOrganisations.setStatus")(
        function*(
          id: number,
          status: AdminOrganisationStatus
        ) {
          const admin = yield* TenantAdmin
          const row = yield* db.transaction(Effect.gen(function*() {
            const changed = yield* repo.setStatus(id, status)
            if (Option.isNone(changed)) return yield* organisationNotFound()
            const { previous_status, ...row } = changed.value
            if (previous_status !== status) {
              yield* outbox.append(
                new DomainEvents.OrganisationStatusChanged({
                  organisation_id: id,
                  from: previous_status,
                  to: status,
                  changed_by: admin.userId
                })
              )
            }
            return row
          }))
          return yield* one(row)
        },
        requireTenantAdmin
      )

      const members = Effect.fn("AdminOrganisations.members")(
        function*(
          id: number,
          params: { readonly page?: number | undefined; readonly per_page?: number | undefined }
        ) {
          yield* TenantAdmin
          yield* access.find(id)
          const { page, perPage } = offsetPage(params, DEFAULT_ADMIN_ORGANISATIONS_PER_PAGE)
          const { rows, total } = yield* repo.membersPage(id, page, perPage)
          const people = yield* summaries.byIds(rows.map((r) => r.user_id))
          const data = rows.map((r) =>
            AdminOrganisationMember.make({
              id: r.id,
              user: memberOf(people, r.user_id),
              role: r.role,
              status: r.status,
              joined_at: DateTime.unsafeFromDate(r.created_at)
            })
          )
          return { data, meta: offsetMeta(page, perPage, total) }
        },
        requireTenantAdmin
      )

      /** Treasury → organisation for a positive amount, back for a negative one; never below 0 (422). */
      const adjustWallet = Effect.fn("AdminOrganisations.adjustWallet")(
        function*(
          id: number,
          input: OrganisationWalletAdjustment,
          idempotencyKey: string | undefined
        ) {
          yield* access.find(id)
          const posted = yield* ledger.adjustOrganisation(id, toCents(input.amount), input.reason, idempotencyKey)
          const balance = yield* ledger.organisationBalance(id)
          return {
            balance: fromCents(balance),
            transaction_id: posted.transactionId as TransactionId
          } satisfies OrganisationWalletAdjusted
        },
        requireTenantAdmin
      )

      const walletTransactions = Effect.fn("AdminOrganisations.walletTransactions")(
        function*(
          id: number,
          params: VolunteeringPageParams
        ) {
          yield* TenantAdmin
          yield* access.find(id)
          const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
          const rows = yield* ledger.organisationTransactions(id, params.cursor, perPage)
          return cursorPage(rows, perPage, (last) => encodeCursor(last.id))
        },
        requireTenantAdmin
      )

      return { list, create, update, setStatus, members, adjustWallet, walletTransactions } as const
    })
  }
) {}
