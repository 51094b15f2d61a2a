import {
  cursorPage,
  type DashboardApplicationsParams,
  type DashboardVolunteer,
  encodeCursor,
  fromCents,
  type OrganisationId,
  type OrganisationStatsView,
  type UserId,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type VolunteeringPageParams
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { LedgerService } from "../ledger/LedgerService.js"
import { requireFeature } from "../platform/FeatureGate.js"
import { idCursorPage } from "../platform/Paging.js"
import { DashboardRepo } from "./DashboardRepo.js"
import { OrganisationAccess, OrganisationManager } from "./OrganisationPolicy.js"
import { VolunteeringViews } from "./VolunteeringViews.js"

export const gateVolunteering = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.zipRight(requireFeature("volunteering"), effect)

const unknownUser = (id: number) => ({
  id: id as UserId,
  first_name: "Deleted",
  last_name: "User",
  avatar_url: null
})

/**
 * The organisation owner's dashboards: totals, volunteers, applications, hours awaiting review. Readable in every
 * status of the organisation (owners keep reading a suspended one) by those `OrganisationAccess.manage` admits.
 */
export class DashboardService extends Effect.Service<DashboardService>()("DashboardService", {
  dependencies: [DashboardRepo.Default, OrganisationAccess.Default, VolunteeringViews.Default, UserSummaries.Default],
  effect: Effect.gen(function*() {
    const repo = yield* DashboardRepo
    const access = yield* OrganisationAccess
    const views = yield* VolunteeringViews
    const users = yield* UserSummaries
    const ledger = yield* LedgerService

    /** Two statements besides the access check: the totals and the wallet's balance, side by side. */
    const stats = Effect.fn("Dashboard.stats")(function*(id: OrganisationId) {
      return yield* access.manage(id)(Effect.gen(function*() {
        const { organisation } = yield* OrganisationManager
        const { totals, balance } = yield* Effect.all({
          totals: repo.totals(id),
          balance: ledger.organisationBalance(id)
        }, { concurrency: 2 })
        return {
          volunteers: totals.volunteers,
          pending_applications: totals.pending_applications,
          pending_hours: Number(totals.pending_hours),
          approved_hours: Number(totals.approved_hours),
          active_opportunities: totals.active_opportunities,
          balance: fromCents(balance),
          auto_pay_enabled: organisation.auto_pay_enabled
        } satisfies OrganisationStatsView
      }))
    }, gateVolunteering)

    /** One statement for the page, one for its members' names. */
    const volunteers = Effect.fn("Dashboard.volunteers")(function*(id: OrganisationId, params: VolunteeringPageParams) {
      return yield* access.manage(id)(Effect.gen(function*() {
        const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
        const rows = yield* repo.volunteers(id, { before: params.cursor, limit: perPage + 1 })
        const page = cursorPage(rows, perPage, (last) => encodeCursor(Number(last.user_id)))
        const members = yield* users.byIds(page.data.map((row) => Number(row.user_id)))
        const data = page.data.map((row): DashboardVolunteer => {
          const userId = Number(row.user_id)
          return {
            user: members.get(userId) ?? unknownUser(userId),
            total_hours: Number(row.total_hours),
            application_count: row.application_count,
            first_approved_at: DateTime.unsafeFromDate(row.first_approved_at)
          }
        })
        return { data, meta: page.meta }
      }))
    }, gateVolunteering)

    const applications = Effect.fn("Dashboard.applications")(function*(
      id: OrganisationId,
      params: DashboardApplicationsParams
    ) {
      return yield* access.manage(id)(Effect.gen(function*() {
        const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
        const rows = yield* repo.applications(id, { before: params.cursor, limit: perPage + 1, status: params.status })
        return yield* idCursorPage(rows, perPage, views.applications)
      }))
    }, gateVolunteering)

    const pendingHours = Effect.fn("Dashboard.pendingHours")(function*(
      id: OrganisationId,
      params: VolunteeringPageParams
    ) {
      return yield* access.manage(id)(Effect.gen(function*() {
        const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
        const rows = yield* repo.pendingHourLogs(id, { before: params.cursor, limit: perPage + 1 })
        return yield* idCursorPage(rows, perPage, views.hourLogs)
      }))
    }, gateVolunteering)

    return { stats, volunteers, applications, pendingHours } as const
  })
}) {}
