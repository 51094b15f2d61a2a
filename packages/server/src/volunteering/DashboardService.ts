import {
  cursorPage,
  type DashboardApplicationsParams,
  type DashboardVolunteer,
  encodeCursor,
  fromCents,
  type OrganisationId,
  type OrganisationStatsView,
  VOLUNTEERING_PER_PAGE_DEFAULT,
  type VolunteeringPageParams
} from "@timebank/domain"
import { DateTime, Effect } from "effect"
import { UserSummaries } from "../identity/UserSummaries.js"
import { LedgerService } from "../ledger/LedgerService.js"
import { DashboardRepo } from "./DashboardRepo.js"
import { OrganisationAccess, OrganisationManager } from "./OrganisationPolicy.js"
import { volunteeringPage } from "./VolunteeringPage.js"
import { memberOf, VolunteeringViews } from "./VolunteeringViews.js"

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
          ...totals,
          balance: fromCents(balance),
          auto_pay_enabled: organisation.auto_pay_enabled
        } satisfies OrganisationStatsView
      }))
    })

    /** One statement for the page, one for its members' names. */
    const volunteers = Effect.fn("Dashboard.volunteers")(function*(id: OrganisationId, params: VolunteeringPageParams) {
      return yield* access.manage(id)(Effect.gen(function*() {
        const perPage = params.per_page ?? VOLUNTEERING_PER_PAGE_DEFAULT
        const rows = yield* repo.volunteers(id, { before: params.cursor, limit: perPage + 1 })
        const page = cursorPage(rows, perPage, (last) => encodeCursor(last.user_id))
        const members = yield* users.byIds(page.data.map((row) => row.user_id))
        const data = page.data.map((row): DashboardVolunteer => ({
          user: memberOf(members, row.user_id),
          total_hours: row.total_hours,
          application_count: row.application_count,
          first_approved_at: DateTime.unsafeFromDate(row.first_approved_at)
        }))
        return { data, meta: page.meta }
      }))
    })

    const applications = Effect.fn("Dashboard.applications")(function*(
      id: OrganisationId,
      params: DashboardApplicationsParams
    ) {
      return yield* access.manage(id)(
        volunteeringPage(
          params,
          (page) => repo.applications(id, { ...page, status: params.status }),
          views.applications
        )
      )
    })

    const pendingHours = Effect.fn("Dashboard.pendingHours")(function*(
      id: OrganisationId,
      params: VolunteeringPageParams
    ) {
      return yield* access.manage(id)(
        volunteeringPage(params, (page) => repo.pendingHourLogs(id, page), views.hourLogs)
      )
    })

    return { stats, volunteers, applications, pendingHours } as const
  })
}) {}
